"""Broken kernels and Warp's diagnostics for them: the ``repair`` config's mutations (``mutations``) and how a
diagnostic is recorded (``diagnostics``), and the columns a repair row adds (``repair_columns``). Pure Python: Warp,
which judges each broken kernel, is asked through ``builder.warp_backend.diagnose``.
"""

from __future__ import annotations

from typing import NamedTuple

from builder import configs
from builder.repair import diagnostics
from builder.repair.mutations import Mutation


class Broken(NamedTuple):
    """A kernel's edit that Warp rejected, and what Warp said (``warp_backend.diagnose.first_rejected``)."""

    mutation: Mutation
    diagnostic: diagnostics.Diagnostic


def fixed_id(config: str, seed: int, split: str, index: int) -> str:
    """The id of the generated row of the same program that holds ``config``'s unit (the cpu config's row): the one
    whose inputs and outputs judge a repair (``program_row.program_fields`` writes its ids)."""
    (fixed,) = configs.names(source="generated", units=configs.spec(config).units)
    return f"{fixed}/{split}/{seed}/{index}"


def repair_columns(source: str, found: Broken, fixed: str) -> dict:
    """The columns a repair row adds to its kernel's (``source``, the working one; ``fixed``: the id of the row that
    holds it); ``validate`` recomputes them and compares."""
    dg = found.diagnostic
    return {
        "broken_source": found.mutation.broken_source,
        "mutation": found.mutation.kind,
        "diagnostic_class": dg.error_class,
        "diagnostic": dg.message,
        "diagnostic_line": dg.line,
        "diff": diagnostics.diff(found.mutation.broken_source, source),
        "fixed_id": fixed,
    }
