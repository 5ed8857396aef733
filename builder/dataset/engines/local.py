"""The local engine: shards in this process (``num_proc`` 1) or in a pool of spawned worker processes.

Workers start with SIGINT and SIGHUP blocked, so Ctrl-C reaches only this process, which stops them; a worker
that dies takes its pool with it, and the unfinished shards go to a fresh pool (at most ``MAX_RETRIES`` times).
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

from builder.dataset import chatter, interrupts
from builder.dataset.engines import MAX_RETRIES
from builder.dataset.shards import ShardJob, run_shard
from builder.errors import ShardFailed, TransientError

POLL = 0.5  # seconds between checks for a signal whose exception was dropped


class LocalEngine:
    name = "local"

    def __init__(self, num_proc: int, env: dict[str, str], log: Path | None = None):
        self.num_proc = num_proc
        self.env = env  # set in the workers' environment (this process keeps its own)
        self.log = log  # where Warp's output goes while a shard runs in this process (``chatter``)

    def slots(self) -> int:
        return self.num_proc

    def run(self, jobs: list[ShardJob], on_done: Callable[[ShardJob, dict], None]) -> None:
        if self.num_proc == 1 or len(jobs) <= 1:
            for job in jobs:
                interrupts.current().check()
                with chatter.sent_to(self.log):
                    record = _with_retries(job)
                on_done(job, record)
            interrupts.current().check()
            return
        left, deaths = list(jobs), 0
        while left:
            left = _pool_round(left, min(self.num_proc, len(left)), on_done, self.env)
            if left:
                deaths += 1
                if deaths > MAX_RETRIES:
                    raise ShardFailed(f"worker processes died {deaths} times; shards left: {_keys(left)}")

    def close(self) -> None:
        pass


def _keys(jobs: list[ShardJob]) -> str:
    return ", ".join(j.shard.key() for j in jobs[:5]) + (" ..." if len(jobs) > 5 else "")


def _with_retries(job: ShardJob) -> dict:
    for attempt in range(MAX_RETRIES + 1):
        try:
            return run_shard(job)
        except TransientError:
            if attempt == MAX_RETRIES:
                raise
    raise AssertionError("unreachable")


def _pool_round(jobs: list[ShardJob], n: int, on_done, env: dict[str, str]) -> list[ShardJob]:
    """Run ``jobs`` on a pool of ``n``; return the jobs left unfinished if a worker died."""
    pool = ProcessPoolExecutor(
        n, mp_context=multiprocessing.get_context("spawn"), initializer=_set_env, initargs=(env,)
    )
    pending: dict = {}
    try:
        with interrupts.blocked_for_children():  # workers are spawned inside submit()
            for job in jobs:
                pending[pool.submit(run_shard, job)] = (job, 0)
        while pending:
            interrupts.current().check()
            done, _ = wait(pending, timeout=POLL, return_when=FIRST_COMPLETED)
            for fut in done:
                job, tries = pending.pop(fut)
                try:
                    record = fut.result()
                except BrokenProcessPool:
                    return [job] + [j for j, _ in pending.values()]
                except TransientError:
                    if tries >= MAX_RETRIES:
                        raise
                    with interrupts.blocked_for_children():
                        pending[pool.submit(run_shard, job)] = (job, tries + 1)
                    continue
                on_done(job, record)
        interrupts.current().check()
        return []
    finally:
        _stop(pool)


def _set_env(env: dict[str, str]) -> None:
    import tempfile

    os.environ.update(env)
    tempfile.tempdir = None  # recomputed from the new TMPDIR
    if env.get(chatter.LOG_ENV):
        chatter.send_to(env[chatter.LOG_ENV])


def _stop(pool: ProcessPoolExecutor) -> None:
    """Stop the workers now (they may be mid-shard: the driver removes what they wrote)."""
    for proc in list((getattr(pool, "_processes", None) or {}).values()):  # Python 3.14: terminate_workers()
        if proc.is_alive():
            proc.terminate()
    pool.shutdown(wait=True, cancel_futures=True)
