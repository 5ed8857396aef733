"""Run one job in a child process with a time limit and a memory limit, and read back what it left.

The child is a fresh interpreter (``python -m builder.evaluate.child``) in its own session, so a timeout kills
its whole process group (compilers included). Its temporary files (Warp's kernel cache, precompiled headers,
``TMPDIR``) live in the job's directory, which the caller removes: a child killed with SIGKILL leaves nothing
behind elsewhere.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from builder.errors import ConfigError


@dataclass(frozen=True)
class Limits:
    """Per-child limits: wall-clock seconds and address space (RLIMIT_AS, MiB; 0 = none)."""

    timeout_s: float = 60.0
    memory_mb: int = 4096

    def __post_init__(self) -> None:
        if not self.timeout_s > 0:
            raise ConfigError(f"--timeout must be a positive number of seconds, got {self.timeout_s!r}")
        if self.memory_mb < 0:
            raise ConfigError(f"memory limit must be >= 0 MiB, got {self.memory_mb!r}")


@dataclass(frozen=True)
class Outcome:
    """What a child left: ``status`` is ok, error (a stage raised), timeout, crash (signal) or exit (status)."""

    status: str
    compiled: bool
    stage: str = ""  # compile or launch, for status error
    detail: str = ""
    outputs: Path | None = None


def _tail(text: str) -> str:
    lines = [x for x in text.splitlines() if x.strip()]
    return lines[-1][:500] if lines else ""


def run_child(job: dict, directory: Path, limits: Limits) -> Outcome:
    """Run ``job`` (see ``child.py``) in ``directory`` (created, left for the caller to remove)."""
    directory.mkdir(parents=True)
    tmp = directory / "tmp"
    tmp.mkdir()
    job = {**job, "out": str(directory), "memory_mb": 0 if job["target"] != "cpu" else limits.memory_mb}
    job_path = directory / "job.json"
    job_path.write_text(json.dumps(job))
    env = {
        **os.environ,
        "TMPDIR": str(tmp),
        "WARP_CUDA_IR_KERNEL_CACHE": str(directory / "kernel_cache"),
        "PYTHONHASHSEED": "0",
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "builder.evaluate.child", str(job_path)],
        cwd=directory,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        errors="replace",
        start_new_session=True,
    )
    try:
        _, stderr = proc.communicate(timeout=limits.timeout_s)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        proc.communicate()
        return Outcome("timeout", (directory / "compiled").exists(), detail=f"killed after {limits.timeout_s:g} s")
    finally:
        _kill_group(proc)  # anything the child started and left running
    compiled = (directory / "compiled").exists()
    if proc.returncode < 0:
        name = signal.Signals(-proc.returncode).name
        return Outcome("crash", compiled, detail=f"{name}; {_tail(stderr)}".rstrip("; "))
    error = directory / "error.json"
    if error.exists():
        info = json.loads(error.read_text())
        return Outcome("error", compiled, info["stage"], info["message"])
    outputs = directory / "outputs.npz"
    if proc.returncode != 0:
        return Outcome("exit", compiled, detail=f"exit status {proc.returncode}; {_tail(stderr)}".rstrip("; "))
    return Outcome("ok", compiled, outputs=outputs if outputs.exists() else None)


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
