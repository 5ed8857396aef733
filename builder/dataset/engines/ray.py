"""The Ray engine: one Ray core task per shard, on a local Ray instance or a cluster (``--address``).

Tasks take one CPU (and one GPU when the build includes ``gpu-verified``, whose GPU comparison runs inside the
shard), are retried on ``TransientError`` and when their worker dies (``max_retries``), and write their files
with the same atomic commits as the local engine, so a killed attempt leaves nothing its retry does not replace.
A ``GeneratorBug`` is not retried: it stops the build with the row's coordinates.
"""

from __future__ import annotations

import signal
from collections.abc import Callable

from builder.dataset import interrupts
from builder.dataset.engines import MAX_RETRIES
from builder.dataset.shards import ShardJob, run_shard
from builder.errors import ConfigError, GPURequired, ShardFailed, TransientError

POLL = 0.5
CANCEL_WAIT = 30.0


def _import_ray():
    try:
        import ray
    except ImportError as exc:
        raise ConfigError("--engine ray needs Ray: pip install 'warp-cuda-ir[ray]'") from exc
    return ray


def _shard_task(job: ShardJob) -> dict:
    return run_shard(job)


class RayEngine:
    name = "ray"

    def __init__(self, address: str | None, gpu: bool, env: dict[str, str]):
        self.ray = _import_ray()
        self.started = not self.ray.is_initialized()
        if self.started:
            ours = {s: signal.getsignal(s) for s in interrupts.SIGNALS}
            self.ray.init(
                address=address,
                include_dashboard=False,
                configure_logging=False,
                log_to_driver=True,
                runtime_env={"env_vars": env},
            )
            for s, handler in ours.items():  # a Ray it starts here installs its own SIGTERM handler
                signal.signal(s, handler)
        # workers are reused across shards (Warp initialised once per worker); each one's kernel cache is removed
        # when it exits, and release() empties it of every module as soon as the module is done
        remote = self.ray.remote(num_cpus=1, max_retries=MAX_RETRIES, retry_exceptions=[TransientError])
        self.task = remote(_shard_task)
        if gpu:
            if self.ray.cluster_resources().get("GPU", 0) < 1:  # the tasks would wait forever for one
                self.close()
                raise GPURequired("config 'gpu-verified' on this Ray cluster")
            self.task = self.task.options(num_gpus=1)

    def slots(self) -> int:
        return max(1, int(self.ray.cluster_resources().get("CPU", 1)))

    def run(self, jobs: list[ShardJob], on_done: Callable[[ShardJob, dict], None]) -> None:
        ray = self.ray
        refs = {self.task.remote(job): job for job in jobs}
        try:
            while refs:
                interrupts.current().check()
                ready, _ = ray.wait(list(refs), num_returns=1, timeout=POLL)
                for ref in ready:
                    job = refs.pop(ref)
                    on_done(job, self._result(ref, job))
            interrupts.current().check()
        finally:
            if refs:  # cancel only what is still running: Ray 2.60 aborts the driver on a force-cancel that
                # races a task's completion (task_manager.cc "Check failed: it != submissible_tasks_")
                done, _ = ray.wait(list(refs), num_returns=len(refs), timeout=0)
                for ref in done:
                    refs.pop(ref)
            for ref in refs:
                ray.cancel(ref, force=True)
            if refs:  # let the cancelled tasks end before the driver removes the folder they write into
                ray.wait(list(refs), num_returns=len(refs), timeout=CANCEL_WAIT)

    def _result(self, ref, job: ShardJob) -> dict:
        ray = self.ray
        try:
            return ray.get(ref)
        except ray.exceptions.RayTaskError as exc:  # the task raised: re-raise its own error (names the row)
            cause = getattr(exc, "cause", None)
            raise (cause if isinstance(cause, BaseException) else ShardFailed(str(exc).splitlines()[0])) from None
        except ray.exceptions.RayError as exc:  # its worker died more than max_retries times, or similar
            raise ShardFailed(f"shard {job.shard.key()}: {type(exc).__name__} after {MAX_RETRIES} retries") from None

    def close(self) -> None:
        if self.started and self.ray.is_initialized():
            self.ray.shutdown()
