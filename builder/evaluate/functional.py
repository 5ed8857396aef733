"""Score every prediction: exact match, static checks, then compile and run in child processes.

A row's reference (its unmodified ``module_source``) runs once, in a child like any prediction, on the same
device and trials (``trials``: the row's own inputs, fresh seeded ones, a smaller launch); its arrays are read
into this process and its job directory removed before any prediction starts, so a prediction's child never
sees them. Each prediction's arrays are compared with them here (``compare``), within ``execute.TOLERANCES``.
The first reference is the preflight (``preflight``): run alone, it must pass before any other child starts.

A row is left out of ``functional`` (``PredictionResult.not_scored``) when its reference cannot tell a right body
from an empty one (``compare.body_independent``), and a shipped (``real``) row also when inputs cannot be built
from its argument types or its reference does not run cleanly on them; its predictions are still compiled.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from builder.configs import spec
from builder.errors import HarnessUnavailable, ReferenceFailed, SandboxUnavailable
from builder.evaluate import compare, preflight, sandbox, static, trials
from builder.evaluate.predictions import Prediction
from builder.evaluate.splice import splice
from builder.grammar.sample import sample
from builder.shipped.launches import launch_ndim

NO_GPU = "not run: no GPU"
BODY_FREE = "the reference's result does not depend on the function body"
TILE = "tile kernel (its launch block size is not recorded)"


@dataclass
class PredictionResult:
    id: str
    sample: int
    exact_match: bool
    compiled: bool
    functional: bool | None  # None: not evaluable here (a CUDA row without a GPU) or not scored (below)
    reason: str = ""  # why not compiled / not functional ("" when it passed)
    detail: str = ""  # the compiler's or checker's message
    not_scored: str = ""  # why this row's functional result is left out of the scores ("" when it counts)
    loaded: bool | None = None  # a Python prediction: Warp loaded it and generated its code (None: an IR one)

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def job(row: dict, tu: str, stage: str, pch: Path, runs: list[trials.Trial]) -> dict:
    """What a child needs (``workload.run``): no expected value is in it."""
    shipped = not spec(row["config"]).drawn
    own = ("kernel_name", "arg_types") if shipped else ("seed", "split", "index")
    return {
        **{k: row[k] for k in ("id", "category", "python_source", "target", *own)},
        "shipped": shipped,
        "tu": tu,
        "backward": row["pass"] == "backward",
        "stage": stage,
        "pch_dir": str(pch),
        "trials": [t.as_json() for t in runs],
    }


def real_reference_failure(outcome: sandbox.Outcome) -> str:
    """Why a shipped kernel's reference gives nothing to compare with (a reason counted in the report)."""
    if outcome.status == "error" and outcome.detail.startswith("NotEvaluable: "):
        return outcome.detail.removeprefix("NotEvaluable: ").split(";")[0]
    if outcome.status == "crash" and outcome.detail.startswith("SIGILL"):  # a failed assert traps (debug build)
        return "Warp's debug checks fail on generated inputs (an out-of-range index)"
    if outcome.status == "timeout":
        return "reference timed out on generated inputs"
    if outcome.status == "crash":
        return f"reference crashed on generated inputs ({outcome.detail.split(';')[0]})"
    if outcome.status == "error" and outcome.stage == "inputs":
        return "reference raised on generated inputs"
    return f"reference failed in the harness ({outcome.failure()[0]})"


def load_arrays(path: Path) -> dict[str, np.ndarray]:
    with np.load(path) as f:
        return {k: f[k] for k in f.files}


class Evaluator:
    """Schedules reference and prediction children over ``num_proc`` slots, in a private work directory."""

    def __init__(
        self, rows: dict[str, dict], limits: sandbox.Limits, num_proc: int, gpu: bool, n_trials: int = trials.DEFAULT
    ):
        self.rows, self.limits, self.num_proc, self.gpu = rows, limits, num_proc, gpu
        self.n_trials = trials.check_count(n_trials)
        self.work = Path(tempfile.mkdtemp(prefix="warp_cuda_ir_evaluate_"))
        self.pch = self.work / "pch"
        self.pch.mkdir()
        self.jobs = 0
        self.children = sandbox.Children()
        self.references: dict[str, dict[str, np.ndarray]] = {}  # row id -> the reference's arrays, in memory
        self.not_scored: dict[str, str] = {}  # row id -> why its functional result is left out
        self.programs: dict = {}
        self.trials: dict[str, list[trials.Trial]] = {}

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
        runs_here = row["target"] == "cpu" or self.gpu
        return "run" if runs_here and row["id"] not in self.not_scored else "compile"

    def evaluate(self, predictions: list[Prediction]) -> list[PredictionResult]:
        results, pending = [], []
        for p in predictions:
            row = self.rows[p.id]
            reference = row["python_source"] if p.python else row["ir"]
            exact = static.normalize_whitespace(p.ir) == static.normalize_whitespace(reference)
            if p.python:
                reason = static.check_python(p.ir, row["kernel_name"], row["arg_names"])
            else:
                reason = static.check(p.ir, row["ir"])
            results.append(
                PredictionResult(p.id, p.sample, exact, False, False, reason, loaded=False if p.python else None)
            )
            if not reason:
                pending.append((len(results) - 1, p, row))
        for row_id in sorted({p.id for _, p, _ in pending}):
            reason = self._real_exclusion(self.rows[row_id])
            if reason:
                self.not_scored[row_id] = reason
        done = self._preflight([row for _, _, row in pending])
        self._run_references(sorted({p.id for _, p, row in pending if self._stage(row) == "run"}), done)
        outcomes = self._map([self._prediction_job(row, p) for _, p, row in pending])
        for (n, p, row), outcome in zip(pending, outcomes):
            results[n] = self._score(results[n], row, outcome)
            if p.python:  # loaded: Warp generated its code (a stage after the load was reached)
                before = outcome.status == "error" and outcome.stage == "load"
                results[n].loaded = outcome.compiled or (outcome.status == "error" and not before)
        for r in results:
            r.not_scored = self.not_scored.get(r.id, "")
            if r.not_scored:
                r.functional = None
        return results

    def _real_exclusion(self, row: dict) -> str:
        """Why a shipped kernel's row is not run at all here (its predictions are still compiled), or ""."""
        if spec(row["config"]).drawn:
            return ""
        if re.search(r"\bwp\.tile", row["python_source"]):
            return TILE
        # real mixes targets: its CUDA rows are left out of functional, not made null, where no GPU runs them
        return NO_GPU if row["target"] == "cuda" and not self.gpu else ""

    def _preflight(self, rows: list[dict]) -> dict[str, sandbox.Outcome]:
        """The evaluation's first child, one row's reference (``preflight``); returns its outcome by row id when
        it ran as ``_run_references`` would have run it. Raises ``HarnessUnavailable``."""
        if not rows:
            return {}
        row = min(rows, key=lambda r: r["id"])
        stage = preflight.stage(row, self._stage(row))
        try:
            (outcome,) = self._map([self._job_for(row, row["ir"], check_bounds=True, stage=stage)])
        except SandboxUnavailable as exc:
            raise HarnessUnavailable(str(exc)) from None
        preflight.check(row["id"], stage, outcome)
        return {row["id"]: outcome} if stage == "run" else {}

    def _run_references(self, row_ids: list[str], done: dict[str, sandbox.Outcome] | None = None) -> None:
        """Run each row's reference (but those ``done`` already); keep its arrays in memory and remove its job
        directory at once."""
        done = done or {}
        todo = [i for i in row_ids if i not in done]
        jobs = [self._job_for(self.rows[i], self.rows[i]["ir"], check_bounds=True) for i in todo]
        outcomes = {**done, **dict(zip(todo, self._map(jobs)))}
        for row_id in row_ids:
            row, outcome = self.rows[row_id], outcomes[row_id]
            if outcome.status != "ok" or outcome.outputs is None:
                if not spec(row["config"]).drawn:
                    self.not_scored[row_id] = real_reference_failure(outcome)
                    continue
                # the harness, not a prediction, failed: scoring the row's predictions would mean nothing
                reason, detail = outcome.failure() if outcome.status != "ok" else ("no outputs", "")
                raise ReferenceFailed(row_id, f"{reason}: {detail}" if detail else reason)
            arrays = load_arrays(outcome.outputs)
            shutil.rmtree(outcome.outputs.parent, ignore_errors=True)
            if not spec(row["config"]).drawn and not compare.finite(arrays):
                self.not_scored[row_id] = "non-finite reference results on generated inputs"
            elif compare.body_independent(arrays, row["pass"] == "backward"):
                self.not_scored[row_id] = BODY_FREE
            else:
                self.references[row_id] = arrays

    def _program(self, row: dict):
        """The row's program, regenerated once (it gives the comparison each output's scalar type)."""
        if row["id"] not in self.programs:
            self.programs[row["id"]] = sample(row["seed"], row["split"], row["index"], (row["category"],)).program
        return self.programs[row["id"]]

    def _trials(self, row: dict) -> list[trials.Trial]:
        if row["id"] not in self.trials:
            if not spec(row["config"]).drawn:
                ndim = launch_ndim(row["python_source"], row["kernel_name"])
                self.trials[row["id"]] = trials.real(row, ndim, self.n_trials)
            else:
                self.trials[row["id"]] = trials.generated(row, self._program(row), self.n_trials)
        return self.trials[row["id"]]

    def _job_for(self, row: dict, ir: str, check_bounds: bool = False, stage: str = "") -> dict:
        stage = stage or self._stage(row)
        out = job(row, splice(row["module_source"], row["ir"], ir), stage, self.pch, self._runs(row, stage))
        out["check_bounds"] = check_bounds and out["shipped"]
        return out

    def _prediction_job(self, row: dict, p: Prediction) -> dict:
        """The child's job for one prediction: an IR one spliced into the row's unit; a Python one given whole,
        with the signature its kernel must have (Warp loads and builds it in the child)."""
        if not p.python:
            return self._job_for(row, p.ir)
        stage = self._stage(row)
        out = job(row, "", stage, self.pch, self._runs(row, stage))
        out |= {"prediction": p.ir, "check_bounds": False} | {
            k: row[k] for k in ("kernel_name", "arg_names", "arg_types")
        }
        return out

    def _runs(self, row: dict, stage: str) -> list[trials.Trial]:
        return self._trials(row) if stage == "run" else []

    def _tolerance(self, row: dict) -> compare.Tolerance:
        from builder.warp_backend import execute

        if not spec(row["config"]).drawn:
            return compare.loosest(self.references[row["id"]], execute.TOLERANCES)
        program = self._program(row)
        return lambda dtype: execute.tolerance(dtype, program)

    def _score(self, result: PredictionResult, row: dict, outcome: sandbox.Outcome) -> PredictionResult:
        result.compiled = outcome.compiled
        if outcome.status != "ok":
            result.reason, result.detail = outcome.failure()
            return result
        if row["id"] in self.not_scored:
            return result
        if self._stage(row) == "compile":
            result.functional, result.reason = None, NO_GPU
            return result
        if outcome.outputs is None:
            result.reason, result.detail = "child failed", "exited without outputs"
            return result
        ref = self.references[row["id"]]
        result.functional, result.detail = compare.compare(load_arrays(outcome.outputs), ref, self._tolerance(row))
        result.reason = "" if result.functional else "wrong output"
        return result
