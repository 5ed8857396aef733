"""Run one job in a child process, isolated, with a time limit and a memory limit, and read back what it left.

Children are forked by a fork server (``multiprocessing``'s ``forkserver``: a clean single-threaded process
started once, with a scrubbed environment, which imports ``child.PRELOAD`` and never initialises Warp), so each
is a fresh process that starts with the heavy imports done. Unless ``Limits.isolate`` is off, a child then
joins its job's bubblewrap sandbox (``isolation``, ``enter``): no network, a read-only file system except the
job directory, its own PID namespace, killed whole when the job ends. A child makes itself a session leader, so
a timeout also kills its process group. Its temporary files (Warp's kernel cache, ``TMPDIR``) live in the job's
directory, which the caller removes; its stderr is a FIFO read into a bounded buffer (``output``).
"""

from __future__ import annotations

import ctypes
import json
import math
import multiprocessing
import os
import re
import shutil
import signal
import threading
from dataclasses import dataclass
from multiprocessing import spawn
from pathlib import Path

from builder.errors import ConfigError
from builder.evaluate import child, isolation, output


@dataclass(frozen=True)
class Limits:
    """Per-child limits: wall-clock seconds, address space (RLIMIT_AS, MiB; 0 = none) and the sandbox."""

    timeout_s: float = 60.0
    memory_mb: int = 4096
    isolate: bool = True  # False only when the user passed --unsafe-no-isolation

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

    def failure(self) -> tuple[str, str]:
        """(reason, detail) of a child that did not finish its job, as a result's ``reason`` names it."""
        if self.status == "timeout":
            return "timeout", self.detail
        if self.status == "crash":
            return f"crashed ({self.detail.split(';')[0]})", self.detail
        if self.status == "error" and self.stage == "load":  # a Python prediction Warp rejected: by error class
            return f"not loaded ({self.detail.split(':')[0]})", self.detail
        if self.status == "error" and self.stage == "signature":
            return "signature differs from the reference", self.detail
        if self.status == "error":
            return ("compile error" if self.stage == "compile" else "launch error"), self.detail
        if "MemoryError" in self.detail:
            return "out of memory", self.detail
        return "child failed", self.detail


_lock = threading.Lock()
_context: multiprocessing.context.BaseContext | None = None


def _ctx() -> multiprocessing.context.BaseContext:
    global _context
    if _context is None:
        _context = multiprocessing.get_context("forkserver")
        _context.set_forkserver_preload(list(child.PRELOAD))
    return _context


_server_started = False


def _ensure_server() -> None:
    """Start the fork server, if this evaluation has not, with only ``isolation.SAFE_ENV`` in its environment:
    a child's environment block is the fork server's, and tokens or HOME must not be in it. The process's C
    environment (which the server inherits; libraries such as readline set variables there that ``os.environ``
    does not list) is replaced while the server is spawned, then rebuilt from ``os.environ``, which is never
    touched. The caller holds ``_lock``."""
    global _server_started
    if _server_started:
        return
    from multiprocessing import forkserver

    libc = ctypes.CDLL(None)
    libc.clearenv()
    for name in isolation.SAFE_ENV:
        if name in os.environ:
            os.putenv(name, os.environ[name])
    try:
        _ctx()
        forkserver.ensure_running()
    finally:
        libc.clearenv()
        for name, value in os.environ.items():
            os.putenv(name, value)
    _server_started = True


def _start_without_main(proc: multiprocessing.process.BaseProcess) -> None:
    """Start a child without re-importing the parent's ``__main__`` in it.

    multiprocessing re-imports the parent's main module in every child (pytest's, a notebook's, or one it
    cannot find, like ``<stdin>``); the child's target lives in ``child``, so nothing from main is needed.
    The caller holds ``_lock``, so the preparation data is changed for this start only.
    """
    prepare = spawn.get_preparation_data

    def without_main(name: str) -> dict:
        data = prepare(name)
        data.pop("init_main_from_name", None)
        data.pop("init_main_from_path", None)
        return data

    spawn.get_preparation_data = without_main
    try:
        proc.start()
    finally:
        spawn.get_preparation_data = prepare


def _last_line(text: str) -> str:
    lines = [x for x in text.splitlines() if x.strip()]
    return lines[-1][:500] if lines else ""


def _first_error(text: str) -> str:
    """The compiler's first ``error:`` line (Warp's CPU compiler prints its diagnostics, then raises a bare code)."""
    line = next((x.strip() for x in text.splitlines() if "error:" in x), "")
    return re.sub(r"\S*/(?=[^/\s]+:\d+:\d+: )", "", line)[:300]  # the job directory's path says nothing


class Children:
    """The children running now, so an interrupted evaluation can kill them all and start no more."""

    def __init__(self) -> None:
        self.running: set[multiprocessing.process.BaseProcess] = set()
        self.stopped = False

    def stop(self) -> None:
        with _lock:
            self.stopped = True
            for proc in list(self.running):
                _kill_group(proc)


def run_child(job: dict, directory: Path, limits: Limits, children: Children) -> Outcome:
    """Run ``job`` (see ``child.py``) in ``directory`` (created, left for the caller to remove).

    A child whose status the fork server lost (multiprocessing reports exit status 255 when it cannot read it) is
    run once more: that is the harness failing, not the prediction; a prediction that itself exits 255 fails twice.
    """
    outcome = _run_once(job, directory, limits, children)
    if outcome.status == "exit" and outcome.detail.startswith(f"exit status {LOST_STATUS}"):
        shutil.rmtree(directory, ignore_errors=True)
        outcome = _run_once(job, directory, limits, children)
    return outcome


LOST_STATUS = 255


def _run_once(job: dict, directory: Path, limits: Limits, children: Children) -> Outcome:
    directory.mkdir(parents=True)
    (directory / "tmp").mkdir()
    stderr = output.Stderr(directory / "stderr.txt")
    holder = None
    try:
        holder = _holder(job, directory) if limits.isolate else None
        proc, timed_out = _start_and_wait(_job_file(job, directory, limits, holder), limits, children)
    finally:
        if holder is not None:
            holder.stop()  # ends the job's PID namespace: nothing the prediction started outlives it
        text = stderr.close()
    return _outcome(proc, timed_out, directory, limits, text)


def _holder(job: dict, directory: Path) -> isolation.Holder:
    """The job's sandbox; the shared precompiled-header directory is writable only while it is empty (for the
    first job, a row's reference, which fills it)."""
    pch = (Path(job["pch_dir"]),) if job.get("pch_dir") else ()
    fill = bool(pch) and not any(pch[0].iterdir())
    gpu = job["target"] != "cpu" and job["stage"] == "run"
    return isolation.Holder(isolation.command(directory, pch if fill else (), () if fill else pch, gpu))


def _job_file(job: dict, directory: Path, limits: Limits, holder: isolation.Holder | None) -> Path:
    # CUDA reserves far more address space than it uses, so RLIMIT_AS applies to CPU jobs only
    memory = 0 if job["target"] != "cpu" else limits.memory_mb
    job = {**job, "memory_mb": memory, "cpu_s": math.ceil(limits.timeout_s) + 1}
    job["sandbox_pid"] = holder.pid if holder is not None else None
    path = directory / "job.json"
    path.write_text(json.dumps(job))
    return path


def _start_and_wait(job_path: Path, limits: Limits, children: Children):
    with _lock:  # one start at a time: the fork server's connection is set up per start
        if children.stopped:
            raise KeyboardInterrupt("evaluation stopped")
        _ensure_server()
        proc = _ctx().Process(target=child.main, args=(str(job_path),), daemon=True)
        _start_without_main(proc)
        children.running.add(proc)
    try:
        proc.join(limits.timeout_s)
        timed_out = proc.is_alive()
    finally:
        _kill_group(proc)
        proc.join()
        with _lock:
            children.running.discard(proc)
    return proc, timed_out


def _outcome(proc, timed_out: bool, directory: Path, limits: Limits, stderr: str) -> Outcome:
    compiled = (directory / "compiled").exists()
    if timed_out or proc.exitcode == -signal.SIGXCPU:
        return Outcome("timeout", compiled, detail=f"killed after {limits.timeout_s:g} s")
    last = _last_line(stderr)
    if proc.exitcode < 0:
        name = signal.Signals(-proc.exitcode).name
        return Outcome("crash", compiled, detail=f"{name}; {last}".rstrip("; "))
    info = _error_info(directory / "error.json")
    if info is not None:
        diagnostic = _first_error(stderr)
        detail = f"{info['message']}; {diagnostic}" if diagnostic else info["message"]
        return Outcome("error", compiled, info["stage"], detail)
    if proc.exitcode != 0:
        return Outcome("exit", compiled, detail=f"exit status {proc.exitcode}; {last}".rstrip("; "))
    outputs = directory / "outputs.npz"
    regular = outputs.is_file() and not outputs.is_symlink()  # the prediction could plant a link to any file
    return Outcome("ok", compiled, outputs=outputs if regular else None)


def _error_info(path: Path) -> dict | None:
    """The child's ``error.json``, read no further than ``output.KEEP`` bytes (the prediction can write it too)."""
    if not path.is_file() or path.is_symlink():
        return None
    with open(path, "rb") as f:
        data = f.read(output.KEEP)
    try:
        info = json.loads(data)
        return {"stage": str(info["stage"]), "message": str(info["message"])[:2000]}
    except (ValueError, TypeError, KeyError):
        return {"stage": "launch", "message": "unreadable error.json"}


def _kill_group(proc: multiprocessing.process.BaseProcess) -> None:
    """Kill the child's process group (it may have started compilers), or the child if it has none yet."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        if proc.is_alive():
            proc.kill()


def shutdown() -> None:
    """Stop the fork server (it holds Warp's modules in memory); the next ``run_child`` starts a new one."""
    from multiprocessing import forkserver

    global _server_started
    stop = getattr(forkserver._forkserver, "_stop", None)  # private, but the only way to stop it early
    if stop is not None:
        stop()
    _server_started = False
