"""Progress on stderr: shards and rows done per split, rows/s and an ETA; one summary line at the end.

Rows count from the first row, not the first finished shard: each running shard beats a heartbeat (``Heartbeat``,
its rows so far, in a file of the build's work directory), and a ticker thread of the driver adds them up. On a
terminal the line is redrawn in place every ``TICK`` seconds and at each finished shard; otherwise a line is
printed at most every ``LOG_EVERY`` seconds, the first within a minute, so a log shows the rate without one line
per shard. Ray workers on other machines, which cannot see the work directory, count when their shard finishes.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections import deque
from pathlib import Path

from builder.sources.plan import Shard

LOG_EVERY = 30.0
TICK = 2.0  # seconds between redraws on a terminal, and between a running shard's heartbeats
# Seconds one process spends per row of one config, by verify level, averaged over the three generated configs
# (a program is drawn, emitted and verified once for all of them): the default build at package 4.6.0 spent
# 897 s on its shards with 2 processes for 34,355 rows (0.052 s per row and process, docs/results/benchmarks.md);
# compile does no more work than execute; none from a 48-row build (5 s). Used for the warning before a build of
# hours and for the time left in a build's first minutes.
SECONDS_PER_ROW = {"none": 0.04, "compile": 0.052, "execute": 0.052}
# The rate the time left is computed from: rows over the last this many seconds, once the build has run that long.
# A worker's first shard is slower (it builds the compilers' precompiled headers and warms Warp up), so the rate
# since the start kept the time left 10-15% too long for the whole default build (docs/results/benchmarks.md).
# Chosen by replaying that build's log (a line each 30 s): 120 s let one shard's burst of rows swing the estimate
# by 40%, 180 s kept it within 25% from the fourth minute on.
RATE_WINDOW = 180.0
# ... and until twice that long, the rate the build was expected to have (``Progress.expected_rate``, from
# SECONDS_PER_ROW) counts as RATE_WINDOW seconds of rows at that rate beside the rows built so far: the slow start
# lasts longer than RATE_WINDOW, and the rate over the first three minutes made the time left 30-40% too long (the
# 18 min 35 s default build at package 4.5.0: its fractions done after 1 to 5 minutes, docs/results/benchmarks.md,
# are what this was chosen on). The seconds before the first row (workers importing Warp and building the
# compilers' precompiled headers) are not counted: with them, the time left at 30 s and 1 minute was 40% and 32%
# too long (the 15 min 52 s default build at package 4.6.0).


def hms(seconds: float) -> str:
    s = int(round(seconds))
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"


def _label(shard: Shard) -> str:
    """What the progress line counts a shard under: its split, or ``real`` for the real config's shards."""
    return shard.config or shard.split


def show(stream, tty: bool, line, last_log: float) -> float:
    """Redraw ``line()`` in place on a terminal; in a log, print it when LOG_EVERY seconds passed since
    ``last_log``. Returns the time of the last logged line."""
    now = time.monotonic()
    if tty:
        print("\r" + line() + "\x1b[K", end="", file=stream, flush=True)
    elif now - last_log >= LOG_EVERY:
        print(line(), file=stream, flush=True)
        return now
    return last_log


class Heartbeat:
    """A running shard's rows so far, written to ``DIR/SHARD`` at most every ``TICK`` seconds (a no-op without
    a directory, or where it does not exist: a Ray worker on another machine)."""

    def __init__(self, folder: str | None, shard: Shard):
        self.path = Path(folder) / shard.key() if folder and os.path.isdir(folder) else None
        self.rows = 0
        self.last = 0.0

    def beat(self) -> None:
        self.rows += 1
        if time.monotonic() - self.last >= TICK:
            self.flush()

    def flush(self) -> None:
        self.last = time.monotonic()
        if self.path is not None:
            tmp = self.path.with_suffix(".tmp")
            tmp.write_text(str(self.rows))
            os.replace(tmp, self.path)  # the reader never sees a half-written count


class Progress:
    def __init__(
        self,
        shards: list[Shard],
        configs: int,
        engine: str,
        stream=None,
        beats: str | None = None,
        expected_rate: float = 0.0,
    ):
        """``expected_rate``: rows (of a split, as counted here) per second the build should reach, or 0 for no
        expectation (then the time left shows ``?`` until rows are built)."""
        self.expected_rate = expected_rate
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.configs = configs
        self.engine = engine
        self.total = {_label(s): 0 for s in shards}
        self.rows_total = {_label(s): 0 for s in shards}
        for s in shards:
            self.total[_label(s)] += 1
            self.rows_total[_label(s)] += s.rows  # a real shard's rows are known only once built: 0 here
        # real shards' rows are known once built: their time left goes by their weight (``Shard.weight``)
        self.weight_total = sum(s.weight for s in shards)
        self.weight_built = 0  # of the shards this run built (reused ones took no time)
        self.done = dict.fromkeys(self.total, 0)
        self.rows_done = dict.fromkeys(self.total, 0)
        self.reused = 0
        self.built_rows = 0  # rows generated by this run (reused shards do not count towards the rate)
        self.start = time.monotonic()
        self.last_log = self.start
        self.beats = Path(beats) if beats else None  # running shards' heartbeats
        self.finished_keys: set[str] = set()
        # beats per row of the split: a shard of every generated config beats once per config, others once
        self.per_row = {s.key(): max(1, configs) if s.rows and not s.config else 1 for s in shards}
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.ticker: threading.Thread | None = None
        self.samples: deque[tuple[float, int]] = deque()  # (time, rows built): the recent rate's window
        self.first_row: float | None = None  # when the first row of this run was counted

    def tick(self) -> None:
        """Redraw (terminal) or log (at most every LOG_EVERY seconds) from a daemon thread until ``summary``."""

        def loop() -> None:
            while not self.stop.wait(TICK):
                self._show()

        self.ticker = threading.Thread(target=loop, name="warp-cuda-ir-progress", daemon=True)
        self.ticker.start()

    def finished(self, shard: Shard, reused: bool = False, written: int = 0) -> None:
        """``written``: the rows a real shard wrote (its rows are not planned), for the rows count."""
        with self.lock:
            self.done[_label(shard)] += 1
            self.rows_done[_label(shard)] += shard.rows or written
            self.finished_keys.add(shard.key())
            if reused:
                self.reused += 1
                self.weight_total -= shard.weight
            else:
                self.built_rows += shard.rows
                self.weight_built += shard.weight
        self._show()

    def _show(self) -> None:
        with self.lock:
            if self.first_row is None and (self.built_rows or self.running()):
                # noted at every tick, not only when a line is printed: a log prints one each LOG_EVERY seconds
                self.first_row = time.monotonic()
            self.last_log = show(self.stream, self.tty, self.line, self.last_log)

    def running(self) -> int:
        """Rows of the running shards so far (of the split, not times configs), from their heartbeats."""
        if self.beats is None:
            return 0
        rows = 0
        for p in self.beats.iterdir() if self.beats.is_dir() else ():
            if p.suffix == ".tmp" or p.name in self.finished_keys:
                continue
            try:
                rows += int(p.read_text()) // self.per_row.get(p.name, 1)
            except (OSError, ValueError):  # replaced or removed while read: the next tick counts it
                continue
        return rows

    def rate(self) -> float:
        """Rows built per second since the start (the summary's average)."""
        elapsed = time.monotonic() - self.start
        return (self.built_rows + self.running()) / elapsed if elapsed > 0 else 0.0

    def recent_rate(self, running: int) -> float:
        """Rows built per second over the last ``RATE_WINDOW`` seconds (since the start, before that long): what
        the time left is computed from. ``running``: the running shards' rows now."""
        now, built = time.monotonic(), self.built_rows + running
        self.samples.append((now, built))
        while self.samples[0][0] < now - RATE_WINDOW:  # the oldest sample left is within the window
            self.samples.popleft()
        then, before = self.samples[0]
        if now - self.start < RATE_WINDOW or now - then < RATE_WINDOW / 2:
            then, before = self.start, 0
        return (built - before) / (now - then) if now > then else 0.0

    def estimated_rate(self, running: int, recent: float) -> float:
        """The rate the time left is computed from: the recent rate (``recent``), except in the first
        2 x RATE_WINDOW seconds, where the expected rate stands in for RATE_WINDOW seconds of rows and the time
        since the first row (none before it) is what the rows took."""
        now, built = time.monotonic(), self.built_rows + running
        if built and self.first_row is None:  # a line drawn before any tick saw a row
            self.first_row = now
        if self.expected_rate > 0 and now - self.start < 2 * RATE_WINDOW:
            since = now - self.first_row if self.first_row is not None else 0.0
            return (built + self.expected_rate * RATE_WINDOW) / (since + RATE_WINDOW)
        return recent

    def line(self) -> str:
        parts = [f"{s} {self.done[s]}/{self.total[s]} shards" for s in self.total]
        running = self.running()
        if not any(self.rows_total.values()):  # only real shards, whose rows are known once built: go by shards
            built = sum(self.done.values()) - self.reused
            left = sum(self.total.values()) - sum(self.done.values())
            elapsed = time.monotonic() - self.start
            if self.weight_built:  # real's 111 shards differ in size: from 8 to 218 kernels, 37 kB to 1.5 MB
                left, built = self.weight_total - self.weight_built, self.weight_built
            eta = hms(elapsed * left / built) if built else "?"
            rows = f", {sum(self.rows_done.values()) + running} rows" if self.beats else ""  # not x configs: units
            return f"warp-cuda-ir: {', '.join(parts)}{rows}; ETA {eta}"
        done, total = sum(self.rows_done.values()) + running, sum(self.rows_total.values())
        rate = self.recent_rate(running)
        guess = self.estimated_rate(running, rate)
        eta = hms((total - done) / guess) if guess > 0 else "?"
        rows = f"{done}/{total} rows"
        return f"warp-cuda-ir: {', '.join(parts)}, {rows}; {rate:.1f} rows/s x {self.configs} configs; ETA {eta}"

    def close(self) -> None:
        """Stop the ticker; on a terminal, end the redrawn line."""
        self.stop.set()
        if self.ticker is not None:
            self.ticker.join()
            self.ticker = None
            if self.tty:
                print(file=self.stream, flush=True)

    def summary(self) -> None:
        ticking = self.ticker is not None
        self.close()
        if self.tty and not ticking:
            print(file=self.stream)
        shards = sum(self.done.values())
        reused = f" ({self.reused} reused)" if self.reused else ""
        rows = f", {sum(self.rows_done.values())} rows x {self.configs} configs" if self.configs else ""
        rate = f"{self.rate():.1f} rows/s, " if self.configs else ""
        print(
            f"warp-cuda-ir: built {shards} shards{reused}{rows} in {hms(time.monotonic() - self.start)} "
            f"({rate}engine {self.engine})",
            file=self.stream,
            flush=True,
        )


class Counter:
    """One long step's items done of a known total, with a rate and an ETA, shown from the first seconds by a
    ticker thread (``validate``'s regeneration of every row): ``with Counter("determinism", n) as c: c.add()``."""

    def __init__(self, label: str, total: int, stream=None, prefix: str = "warp-cuda-ir validate"):
        self.label, self.total, self.prefix = label, total, prefix
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.done = 0
        self.start = self.last_log = time.monotonic()
        self.stop = threading.Event()
        self.ticker = threading.Thread(target=self._loop, name="warp-cuda-ir-counter", daemon=True)

    def add(self, n: int = 1) -> None:
        self.done += n

    def line(self) -> str:
        elapsed = time.monotonic() - self.start
        rate = self.done / elapsed if elapsed > 0 else 0.0
        eta = hms((self.total - self.done) / rate) if rate > 0 else "?"
        return f"{self.prefix}: {self.label} {self.done}/{self.total}; {rate:.1f}/s; ETA {eta}"

    def _loop(self) -> None:
        while not self.stop.wait(TICK):
            self.last_log = show(self.stream, self.tty, self.line, self.last_log)

    def __enter__(self) -> Counter:
        print(f"{self.prefix}: {self.label}: {self.total} to do", file=self.stream, flush=True)
        self.ticker.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        self.ticker.join()
        if self.tty:
            print(file=self.stream)
        took = hms(time.monotonic() - self.start)
        print(f"{self.prefix}: {self.label}: {self.done}/{self.total} in {took}", file=self.stream, flush=True)
