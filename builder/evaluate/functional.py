"""Score every prediction: exact match, static checks, then compile and run in child processes.

A row's reference (its unmodified ``module_source``) runs once, in a child like any prediction, on the same
device and inputs; each prediction's outputs (and input gradients for backward rows) are compared with the
reference's within ``execute.TOLERANCES``, so a near-equal float result is not failed by a checksum.
"""

from __future__ import annotations

import shutil
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from builder.errors import ReferenceFailed
from builder.evaluate import sandbox, static
from builder.evaluate.predictions import Prediction
from builder.evaluate.splice import splice

NO_GPU = "not run: no GPU"


@dataclass
class Result:
    id: str
    sample: int
    exact_match: bool
    compiled: bool
    functional: bool | None  # None: not evaluable here (a CUDA row without a GPU)
    reason: str = ""  # why not compiled / not functional ("" when it passed)
    detail: str = ""  # the compiler's or checker's message

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def _job(row: dict, tu: str, stage: str, pch: Path) -> dict:
    from builder.warp_backend.verify import input_seed

    return {
        **{k: row[k] for k in ("seed", "split", "index", "category", "python_source", "target")},
        "tu": tu,
        "backward": row["pass"] == "backward",
        "input_seed": input_seed(row["seed"], row["split"], row["index"]),
        "stage": stage,
        "pch_dir": str(pch),
    }


def _failure(outcome: sandbox.Outcome) -> tuple[str, str]:
    """(reason, detail) of a child that did not finish its job."""
    if outcome.status == "timeout":
        return "timeout", outcome.detail
    if outcome.status == "crash":
        return f"crashed ({outcome.detail.split(';')[0]})", outcome.detail
    if outcome.status == "error":
        return ("compile error" if outcome.stage == "compile" else "launch error"), outcome.detail
    if "MemoryError" in outcome.detail:
        return "out of memory", outcome.detail
    return "child failed", outcome.detail


class Evaluator:
    """Schedules reference and prediction children over ``num_proc`` slots, in a private work directory."""

    def __init__(self, rows: dict[str, dict], limits: sandbox.Limits, num_proc: int, gpu: bool):
        self.rows, self.limits, self.num_proc, self.gpu = rows, limits, num_proc, gpu
        self.work = Path(tempfile.mkdtemp(prefix="warp_cuda_ir_evaluate_"))
        self.pch = self.work / "pch"
        self.pch.mkdir()
        self.jobs = 0
        self.children = sandbox.Children()
        self.references: dict[str, Path] = {}  # row id -> the reference's saved outputs
        self.programs: dict = {}

    def close(self) -> None:
        self.children.stop()  # after an interrupt, children may still run; none is left behind
        sandbox.shutdown()
        shutil.rmtree(self.work, ignore_errors=True)

    def _map(self, jobs: list[dict]) -> list[sandbox.Outcome]:
        if not jobs:
            return []
        dirs = [self.work / f"job{self.jobs + n:06d}" for n in range(len(jobs))]
        self.jobs += len(jobs)
        run = lambda job, directory: sandbox.run_child(job, directory, self.limits, self.children)  # noqa: E731
        # the first child fills the shared precompiled-header directory; the rest reuse it
        first = [] if any(self.pch.iterdir()) else [run(jobs[0], dirs[0])]
        jobs, dirs = jobs[len(first) :], dirs[len(first) :]
        pool = ThreadPoolExecutor(max_workers=self.num_proc)
        try:
            rest = list(pool.map(run, jobs, dirs))
        except BaseException:  # an interrupt: kill what runs, start nothing more
            self.children.stop()
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
        return first + rest

    def _stage(self, row: dict) -> str:
        return "run" if row["target"] == "cpu" or self.gpu else "compile"

    def evaluate(self, predictions: list[Prediction]) -> list[Result]:
        results, pending = [], []
        for p in predictions:
            row = self.rows[p.id]
            exact = static.normalize_whitespace(p.ir) == static.normalize_whitespace(row["ir"])
            reason = static.check(p.ir, row["ir"])
            results.append(Result(p.id, p.sample, exact, False, False, reason))
            if not reason:
                pending.append((len(results) - 1, p, row))
        needs_reference = sorted({p.id for _, p, row in pending if self._stage(row) == "run"})
        outcomes = self._map([self._job_for(self.rows[i], self.rows[i]["ir"]) for i in needs_reference])
        for row_id, outcome in zip(needs_reference, outcomes):
            if outcome.status != "ok" or outcome.outputs is None:
                # the harness, not a prediction, failed: scoring the row's predictions would mean nothing
                reason, detail = _failure(outcome) if outcome.status != "ok" else ("no outputs", "")
                raise ReferenceFailed(row_id, f"{reason}: {detail}" if detail else reason)
            self.references[row_id] = outcome.outputs
        outcomes = self._map([self._job_for(row, p.ir) for _, p, row in pending])
        for (n, _, row), outcome in zip(pending, outcomes):
            results[n] = self._score(results[n], row, outcome)
        return results

    def _program(self, row: dict):
        """The row's program, regenerated once (it gives the comparison each output's scalar type)."""
        if row["id"] not in self.programs:
            from builder.dataset.records import sample

            self.programs[row["id"]] = sample(row["seed"], row["split"], row["index"], (row["category"],)).program
        return self.programs[row["id"]]

    def _job_for(self, row: dict, ir: str) -> dict:
        return _job(row, splice(row["module_source"], row["ir"], ir), self._stage(row), self.pch)

    def _score(self, result: Result, row: dict, outcome: sandbox.Outcome) -> Result:
        result.compiled = outcome.compiled
        if outcome.status != "ok":
            result.reason, result.detail = _failure(outcome)
            return result
        if self._stage(row) == "compile":
            result.functional, result.reason = None, NO_GPU
            return result
        if outcome.outputs is None:
            result.reason, result.detail = "child failed", "exited without outputs"
            return result
        from builder.warp_backend import splice_run

        compared = splice_run.compare_saved(self._program(row), outcome.outputs, self.references[row["id"]])
        result.functional, result.detail = compared
        result.reason = "" if result.functional else "wrong output"
        return result
