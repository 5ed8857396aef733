"""Run ``warp-cuda-ir`` in a subprocess with a private TMPDIR and datasets cache, as a user would."""

from __future__ import annotations

import os
import re
import signal
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


def stopped_cleanly(err: str, sig: int, tmp_path) -> int:
    """The last line says what was kept; the build's folder beside the output holds exactly that, nothing else
    is left (no output folder, nothing in TMPDIR). The count of finished shards kept."""
    name = signal.Signals(sig).name
    last = err.strip().splitlines()[-1]
    assert not (tmp_path / "o").exists()
    if last == f"warp-cuda-ir: interrupted ({name}); nothing was written":
        assert leftovers(tmp_path) == []
        return 0
    kept = re.fullmatch(
        rf"warp-cuda-ir: interrupted \({name}\); (\d+) finished shards kept in (.+); run the same command to continue",
        last,
    )
    assert kept, err
    (staging,) = tmp_path.glob(".o.partial-*")
    assert kept[2] == str(staging) and len(list((staging / ".done").glob("*.json"))) == int(kept[1]) > 0
    assert leftovers(tmp_path) == [staging.name]
    return int(kept[1])
