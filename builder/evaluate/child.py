"""The child process that compiles (and runs) one translation unit.

``sandbox.run_child`` starts it from a fork server that has already imported Warp, the generator and the
dataset schema (about 2-4 s of imports a fresh interpreter would pay per prediction), so a child only
initialises Warp, compiles and runs. First thing, the child makes itself a session leader (a timeout kills
its whole process group), points its temporary files into its job directory, sends its stdout away and its
stderr to a file there, and sets its memory limit. It reports through files in its job directory, never
through stdout (a predicted kernel may print):

- ``compiled``: written as soon as the translation unit compiled and its entry points resolved;
- ``outputs.npz``: the outputs (``out/NAME``) and input gradients (``grad/NAME``) of the launch;
- ``error.json``: ``{"stage": "compile" | "launch", "message": ...}`` when a stage raised;
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
PRELOAD = ("numpy", "builder.dataset.records", "builder.warp_backend.splice_run")
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


def save_run(path: Path, run) -> None:
    import numpy as np

    arrays = {f"out/{k}": v for k, v in run.outputs.items()} | {f"grad/{k}": v for k, v in run.grads.items()}
    tmp = path.with_name(path.name + ".tmp.npz")
    np.savez(tmp, **arrays)
    tmp.replace(path)


def evaluate(job: dict, out: Path) -> None:
    from builder.dataset.records import sample
    from builder.warp_backend import splice_run

    if job.get("pch_dir"):
        splice_run.share_pch_dir(job["pch_dir"])
    program = sample(job["seed"], job["split"], job["index"], (job["category"],)).program
    if program.source != job["python_source"]:
        _error(out, "compile", ValueError("the row's python_source does not regenerate from its coordinates"))
        return
    if job["stage"] == "compile":  # CUDA without a GPU: NVRTC only
        try:
            splice_run.nvrtc_check(job["tu"])
        except Exception as exc:  # noqa: BLE001 - any compiler failure is the prediction's
            _error(out, "compile", exc)
            return
        _mark_compiled(out)
        return
    stage = ["compile"]

    def compiled() -> None:
        _mark_compiled(out)
        stage[0] = "launch"

    try:
        device = splice_run.device_name(job["target"])
        run = splice_run.compile_and_run(program, job["tu"], device, job["backward"], job["input_seed"], compiled)
    except Exception as exc:  # noqa: BLE001 - compile errors and launch errors come in many types
        _error(out, stage[0], exc)
        return
    save_run(out / "outputs.npz", run)


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
