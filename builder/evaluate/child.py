"""The child process that compiles (and runs) one translation unit: ``python -m builder.evaluate.child JOB.json``.

It is started by ``sandbox.run_child`` in its own process group with a time limit. It sets its own memory
limit before loading anything, so what it compiles and runs cannot take the machine down, and it reports
through files in its job directory, never through stdout (a predicted kernel may print):

- ``compiled``: written as soon as the translation unit compiled;
- ``outputs.npz``: the outputs (``out/NAME``) and input gradients (``grad/NAME``) of the launch;
- ``error.json``: ``{"stage": "compile" | "launch", "message": ...}`` when a stage raised.
"""

from __future__ import annotations

import json
import resource
import sys
import traceback
from pathlib import Path


def limit_memory(megabytes: int) -> None:
    if megabytes > 0:
        limit = megabytes * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


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


def main(job_path: str) -> int:
    job = json.loads(Path(job_path).read_text())
    limit_memory(job["memory_mb"])
    out = Path(job["out"])
    from builder.dataset.records import sample
    from builder.warp_backend import splice_run

    if job.get("pch_dir"):
        splice_run.share_pch_dir(job["pch_dir"])
    program = sample(job["seed"], job["split"], job["index"], (job["category"],)).program
    if program.source != job["python_source"]:
        _error(out, "compile", ValueError("the row's python_source does not regenerate from its coordinates"))
        return 0
    if job["stage"] == "compile":  # CUDA without a GPU: NVRTC only
        try:
            splice_run.nvrtc_check(job["tu"])
        except Exception as exc:  # noqa: BLE001 - any compiler failure is the prediction's
            _error(out, "compile", exc)
            return 0
        _mark_compiled(out)
        return 0
    stage = ["compile"]

    def compiled() -> None:
        _mark_compiled(out)
        stage[0] = "launch"

    try:
        device = splice_run.device_name(job["target"])
        run = splice_run.compile_and_run(program, job["tu"], device, job["backward"], job["input_seed"], compiled)
    except Exception as exc:  # noqa: BLE001 - compile errors and launch errors come in many types
        _error(out, stage[0], exc)
        return 0
    save_run(out / "outputs.npz", run)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1]))
    except Exception:  # noqa: BLE001 - the parent reads the tail of stderr as the reason
        traceback.print_exc()
        sys.exit(1)
