"""Run ``warp-cuda-ir`` in a subprocess with a private TMPDIR and datasets cache, as a user would."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SMALL = ["--num-train", "6", "--num-validation", "2", "--num-test", "2", "--configs", "cpu", "--verify", "none"]


def env_for(tmp_path: Path, **extra: str) -> dict[str, str]:
    scratch = tmp_path / "tmpdir"
    scratch.mkdir(exist_ok=True)
    return {
        **os.environ,
        "TMPDIR": str(scratch),
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_CACHE": str(tmp_path / "hf_datasets"),
        "HF_HOME": str(tmp_path / "hf_home"),
        **extra,
    }


def leftovers(tmp_path: Path) -> list[str]:
    """Temporary files and folders a build left in its TMPDIR or beside its output."""
    scratch = [p.name for p in (tmp_path / "tmpdir").iterdir()] if (tmp_path / "tmpdir").exists() else []
    hidden = [p.name for p in tmp_path.iterdir() if p.name.startswith(".")]
    return scratch + hidden


def start(tmp_path: Path, *args: str, **env: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "builder.cli", "build", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env_for(tmp_path, **env),
        cwd=tmp_path,
    )


def run(tmp_path: Path, *args: str, timeout: float = 300, **env: str) -> subprocess.CompletedProcess:
    proc = start(tmp_path, *args, **env)
    out, err = proc.communicate(timeout=timeout)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
