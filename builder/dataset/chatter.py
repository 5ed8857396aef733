"""Warp's own output during a build goes to a log file; the terminal keeps the build's own lines.

What Warp and the packages it loads print while rows are made (the no-driver warning, the "Skipping ... tests"
lines of shipped test modules as they are imported, NVRTC's listing of a shipped kernel that does not compile)
says nothing a user acts on: the build reports what it left out, by reason, in its summary. It is written at the
file-descriptor level (by Warp's C code, by import children), so it is caught there: worker processes send
descriptors 1 and 2 to the log for their lifetime; a build that runs shards in its own process sends them there
while a shard runs, and draws its progress on a duplicate of the terminal taken before.

Logs live in this tool's own folder, ``$XDG_STATE_HOME/warp_cuda_ir/logs`` (``~/.local/state/warp_cuda_ir/logs``;
``WARP_CUDA_IR_LOG_DIR`` names another), where the XDG base-directory specification keeps logs. A build that
caught nothing removes its log; the newest ``KEEP`` logs are kept, older ones of this tool removed.
"""

from __future__ import annotations

import contextlib
import datetime
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

LOG_DIR_ENV = "WARP_CUDA_IR_LOG_DIR"
LOG_ENV = "WARP_CUDA_IR_LOG"  # set in a worker's environment: the log its descriptors 1 and 2 go to
KEEP = 20
_PREFIX = "build-"


def log_dir() -> Path:
    if os.environ.get(LOG_DIR_ENV):
        return Path(os.environ[LOG_DIR_ENV])
    state = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(state) / "warp_cuda_ir" / "logs"


def new_log() -> Path:
    """A fresh, empty log file for one build; older logs of this tool beyond ``KEEP`` are removed."""
    folder = log_dir()
    folder.mkdir(parents=True, exist_ok=True)
    ours = sorted(folder.glob(f"{_PREFIX}*.log"))
    for old in ours[: max(0, len(ours) - KEEP + 1)]:
        old.unlink(missing_ok=True)
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%d-%H%M%S-%f")  # names sort by time
    path = folder / f"{_PREFIX}{stamp}-{os.getpid()}.log"
    path.touch(exist_ok=False)
    return path


def send_to(path: str | os.PathLike) -> None:
    """Point this process's descriptors 1 and 2 at the log for good (a worker process, at its start)."""
    _flush()
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.dup2(fd, 1)
        os.dup2(fd, 2)
    finally:
        os.close(fd)


@contextlib.contextmanager
def sent_to(path: str | os.PathLike | None) -> Iterator[None]:
    """Descriptors 1 and 2 point at the log inside the block (None: left alone), and back after it."""
    if path is None:
        yield
        return
    _flush()
    saved = os.dup(1), os.dup(2)
    try:
        send_to(path)
        yield
    finally:
        _flush()
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        os.close(saved[0])
        os.close(saved[1])


def terminal() -> TextIO | None:
    """A stream on a duplicate of descriptor 2 as it is now: lines drawn on it stay on the terminal while the
    descriptor itself points at the log (``sent_to``). None where ``sys.stderr`` is not descriptor 2 (a caller
    that captures it, as pytest's ``capsys`` does): it is then left alone by ``sent_to`` and serves as it is."""
    try:
        if sys.stderr.fileno() != 2:
            return None
    except (AttributeError, OSError, ValueError):
        return None
    return os.fdopen(os.dup(2), "w", buffering=1, encoding=sys.stderr.encoding or "utf-8", errors="replace")


def finish(path: Path, stream: TextIO | None = None) -> None:
    """Remove an empty log; else say in one line where what was caught is."""
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return
    if not size:
        path.unlink(missing_ok=True)
        return
    with open(path, "rb") as f:
        lines = sum(1 for _ in f)
    count = f"{lines} line" + ("s" if lines != 1 else "")
    print(f"warp-cuda-ir: Warp's own output during the build ({count}) is in {path}", file=stream or sys.stderr)


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
