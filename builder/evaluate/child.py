"""The child process that compiles (and runs) one translation unit.

``sandbox.run_child`` starts it from a fork server that has already imported Warp, the generator and the
dataset schema (about 2-4 s of imports a fresh interpreter would pay per prediction), so a child only
initialises Warp, compiles and runs. First thing, the child makes itself a session leader (a timeout kills
its whole process group), points its temporary files into its job directory, sends its stdout away and its
stderr to a file there, and sets its memory limit. It reports through files in its job directory, never
through stdout (a predicted kernel may print):

- ``compiled``: written as soon as the translation unit compiled and its entry points resolved;
- ``outputs.npz``: the arrays of every trial (``builder.warp_backend.trial_run``); never expected values;
- ``error.json``: ``{"stage": "inputs" | "compile" | "launch", "message": ...}`` when a stage raised;
- ``stderr.txt``: everything written to file descriptor 2 (compiler diagnostics, a traceback).
"""

from __future__ import annotations

import json
import os
import resource
import sys
import tempfile
import traceback
from pathlib import Path

# imported once by the fork server, so each child starts with them loaded
PRELOAD = ("numpy", "builder.sources.drawn.records", "builder.warp_backend.splice_run", "builder.evaluate.workload")
KERNEL_CACHE_ENV = "WARP_CUDA_IR_KERNEL_CACHE"  # codegen.KERNEL_CACHE_ENV, named here without importing Warp


def limit_memory(megabytes: int) -> None:
    if megabytes > 0:
        limit = megabytes * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def limit_cpu(seconds: int) -> None:
    """A backstop for the parent's timeout: CPU time past it ends the child (SIGXCPU) even if the evaluator
    that would have killed it is gone. No core files."""
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if seconds > 0:
        resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 5))


def _isolate(out: Path) -> None:
    os.setsid()
    tmp = out / "tmp"
    os.environ["TMPDIR"] = str(tmp)
    os.environ[KERNEL_CACHE_ENV] = str(out / "kernel_cache")
    tempfile.tempdir = str(tmp)
    devnull = os.open(os.devnull, os.O_RDWR)
    err = os.open(out / "stderr.txt", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    for fd, target in ((0, devnull), (1, devnull), (2, err)):
        os.dup2(target, fd)
    sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - lives as long as the process
    sys.stderr = open(2, "w", closefd=False, buffering=1)  # noqa: SIM115


def _mark_compiled(out: Path) -> None:
    (out / "compiled").write_text("")


def _error(out: Path, stage: str, exc: BaseException) -> None:
    message = f"{type(exc).__name__}: {exc}".strip()
    tmp = out / "error.json.tmp"
    tmp.write_text(json.dumps({"stage": stage, "message": message[:2000]}))
    tmp.replace(out / "error.json")


def save_arrays(path: Path, arrays: dict) -> None:
    import numpy as np

    tmp = path.with_name(path.name + ".tmp.npz")
    np.savez(tmp, **arrays)
    tmp.replace(path)


def evaluate(job: dict, out: Path) -> None:
    """Run the job (``workload.run``) and leave its arrays in ``outputs.npz``, or its failure in ``error.json``."""
    from builder.evaluate import workload

    stage = workload.Stage(lambda: _mark_compiled(out))
    try:
        arrays = workload.run(job, stage, str(out / "tmp"))
    except Exception as exc:  # noqa: BLE001 - compile errors and launch errors come in many types
        _error(out, stage.name, exc)
        return
    if arrays is not None:
        save_arrays(out / "outputs.npz", arrays)


def main(job_path: str) -> None:
    """The process's whole life: it never returns into the fork server's code."""
    code = 0
    try:
        out = Path(job_path).parent
        _isolate(out)
        job = json.loads(Path(job_path).read_text())
        if job.get("sandbox_pid"):  # returns in a grandchild inside the job's sandbox (see enter.py)
            from builder.evaluate import enter

            enter.join(job["sandbox_pid"], out)
        limit_memory(job["memory_mb"])
        limit_cpu(job["cpu_s"])
        evaluate(job, out)
    except BaseException:  # noqa: BLE001 - the parent reads the tail of stderr.txt as the reason
        traceback.print_exc()
        code = 1
    finally:
        sys.stderr.flush()
        os._exit(code)
