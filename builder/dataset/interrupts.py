"""SIGINT, SIGTERM and SIGHUP unwind a build the same way: one line, nothing left behind, exit 128 + signal.

The handler records the signal and raises ``Interrupted`` (a ``KeyboardInterrupt``) at once, and the build loop
calls ``check()`` between shards. The record is what makes this reliable: an exception raised by a signal handler
is dropped ("Exception ignored in ...") when it lands while the interpreter runs a finalizer, such as a Warp
array's ``__del__`` during garbage collection, or inside library code that catches everything and carries on;
that is how a ``kill`` about a second into a build was once lost and the build went on. The handler does not
raise inside a finalizer, and a dropped or deferred signal is raised at the next check. Worker processes start
with SIGINT and SIGHUP blocked (a terminal's Ctrl-C reaches the whole process group; only the driver should
answer it) and are stopped by the driver.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator

SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
WORKER_BLOCKED = {signal.SIGINT, signal.SIGHUP}


class Interrupted(KeyboardInterrupt):
    """A signal stopped the build; ``code`` is the exit status (128 + the signal number)."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum
        self.code = 128 + signum


class Interrupts:
    """Which signal arrived first (None while none has)."""

    def __init__(self) -> None:
        self.signum: int | None = None

    def check(self) -> None:
        if self.signum is not None:
            raise Interrupted(self.signum)


_current = Interrupts()  # the build loop's view; replaced while catch() is active


def current() -> Interrupts:
    return _current


@contextlib.contextmanager
def catch() -> Iterator[Interrupts]:
    """Install the handlers for the duration of a build (restored after: main() also runs inside tests)."""
    global _current
    state = Interrupts()
    if threading.current_thread() is not threading.main_thread():
        yield state
        return

    def handler(signum, frame):
        if state.signum is None:  # the first one unwinds; later ones must not break the cleanup it runs
            state.signum = signum
            if not _in_finalizer(frame):  # there it would be printed as "Exception ignored" and dropped
                raise Interrupted(signum)

    previous = {s: signal.signal(s, handler) for s in SIGNALS}
    saved, _current = _current, state
    try:
        yield state
    finally:
        _current = saved
        for s, h in previous.items():
            signal.signal(s, h)


# Code run by the garbage collector or at exit, where a raised exception is printed and dropped: __del__,
# multiprocessing's finalizers, weak-reference callbacks named _remove (WeakSet's, and the one Warp's codegen
# registers per cached function, where a SIGTERM mid-build once landed) and the weakref module's own `remove`
# callbacks (WeakValueDictionary, WeakKeyDictionary).
_FINALIZERS = ("__del__", "_run_finalizers", "_exitfunc", "_remove")


def _in_finalizer(frame) -> bool:
    while frame is not None:
        code = frame.f_code
        if code.co_name in _FINALIZERS or (code.co_name == "remove" and code.co_filename.endswith("weakref.py")):
            return True
        frame = frame.f_back
    return False


@contextlib.contextmanager
def blocked_for_children() -> Iterator[None]:
    """Processes started inside inherit SIGINT and SIGHUP blocked; the caller's mask is restored after.

    multiprocessing's resource tracker unblocks SIGINT when it first starts, so it is started before.
    """
    from multiprocessing import resource_tracker

    resource_tracker.ensure_running()
    old = signal.pthread_sigmask(signal.SIG_BLOCK, WORKER_BLOCKED)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)
