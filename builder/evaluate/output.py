"""A child's stderr, kept bounded: its first and last ``KEEP`` bytes, whatever it writes.

The child opens ``stderr.txt`` in its job directory as its file descriptor 2 (``child._isolate``); here that
name is a FIFO, read by a thread of the evaluator that keeps the head (where a compiler's first ``error:`` is)
and the tail (where a traceback ends), so 200 MB written to stderr cost neither disk nor memory.
"""

from __future__ import annotations

import os
import select
import threading
import time
from pathlib import Path

KEEP = 64 * 1024
DRAIN_S = 2.0  # what is still in the pipe when the child ended is read for at most this long


class Stderr:
    """Reads the FIFO ``path`` until every writer closed it and ``close`` was called."""

    def __init__(self, path: Path):
        os.mkfifo(path, 0o600)
        # non-blocking, so no read blocks the thread; our own writer keeps the FIFO open (no end of file to spin
        # on) until ``close``, whether or not the child opened it yet
        self.fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        self.writer = os.open(path, os.O_WRONLY)
        self.head = bytearray()
        self.tail = bytearray()
        self.dropped = 0
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _keep(self, data: bytes) -> None:
        room = KEEP - len(self.head)
        self.head += data[:room]
        self.tail += data[room:] if room > 0 else data
        if len(self.tail) > KEEP:
            self.dropped += len(self.tail) - KEEP
            del self.tail[:-KEEP]

    def _read(self) -> None:
        deadline = None
        while True:
            ready, _, _ = select.select([self.fd], [], [], 0.1)
            data = os.read(self.fd, 1 << 16) if ready else b""
            if data:
                self._keep(data)
            if self.done.is_set():
                deadline = deadline or time.monotonic() + DRAIN_S
            if (ready and not data) or (deadline and (not data or time.monotonic() > deadline)):
                break  # end of file, or drained after the child ended (an unsandboxed escapee may still write)

    def close(self) -> str:
        """Stop reading (the child and everything it started are gone) and return what was kept."""
        os.close(self.writer)
        self.done.set()
        self.thread.join()
        os.close(self.fd)
        gap = f"\n[... {self.dropped} bytes left out ...]\n" if self.dropped else ""
        return (bytes(self.head) + gap.encode() + bytes(self.tail)).decode(errors="replace")
