"""What an evaluation child does with its job: compile a translation unit, then run it on every trial.

A job is plain JSON (``functional.job``): the row's identity and Python source, the unit to compile, the
``stage`` ("compile": compile only; "run": compile, load and run) and the trials. The child returns arrays
only; which values are expected never reaches it (the parent compares).

- a generated row regenerates its program from ``(seed, split, index)`` and runs it on each trial's inputs;
- a shipped (``real``) row loads its ``python_source`` and builds inputs from its argument types; its reference
  job first runs the kernel as Warp builds it in debug mode (``check_bounds``), whose bounds checks end the
  child on an out-of-range access, so a reference that only ran by luck is never used;
- a Python prediction (``prediction``) is loaded by Warp, which generates its code, and its kernel runs on the
  same inputs as the row's reference (``splice_run.python_run``).
"""

from __future__ import annotations

from collections.abc import Callable

from builder.evaluate.trials import Trial
from builder.grammar.sample import sample


class Stage:
    """The stage the child is in (``compile``, then ``launch``), for the error it reports."""

    def __init__(self, on_compiled: Callable[[], None]):
        self.name, self._on_compiled = "compile", on_compiled

    def compiled(self) -> None:
        self._on_compiled()
        self.name = "launch"


def run(job: dict, stage: Stage, workdir: str) -> dict | None:
    """The job's arrays (``trial_run.run``), or None for a compile-only job; raises from the stage it failed in."""
    from builder.warp_backend import splice_run

    if job.get("pch_dir"):
        splice_run.share_pch_dir(job["pch_dir"])
    if "prediction" in job:
        trials = [Trial.from_json(t) for t in job["trials"]]
        program = None if job["shipped"] else _program(job)
        return splice_run.python_run(job, stage, program, trials, workdir)
    if job["stage"] == "compile":
        if job["target"] == "cpu":
            splice_run.cpu_check(job["tu"], workdir)
        else:  # CUDA without a GPU: NVRTC only
            splice_run.nvrtc_check(job["tu"])
        stage.compiled()
        return None
    device = splice_run.device_name(job["target"])
    trials = [Trial.from_json(t) for t in job["trials"]]
    if job["shipped"]:
        if job.get("check_bounds"):
            stage.name = "inputs"
            splice_run.real_run(job, None, "cpu", job["backward"], trials)
            stage.name = "compile"
        return splice_run.real_run(job, job["tu"], device, job["backward"], trials, stage.compiled)
    return splice_run.compile_and_run(_program(job), job["tu"], device, job["backward"], trials, stage.compiled)


def _program(job: dict):

    program = sample(job["seed"], job["split"], job["index"], (job["category"],)).program
    if program.source != job["python_source"]:
        raise ValueError("the row's python_source does not regenerate from its coordinates")
    return program
