"""The preflight: before any prediction runs, one row's reference goes through the path every prediction takes.

Where that path is broken (a sandbox that hides Python's packages, a Warp that cannot load its libraries, a
``--timeout`` the machine cannot meet), every prediction would fail for the harness's reason, not its own: the
report would score zeros, and a shipped kernel's failed reference would only be counted as not scored. So an
evaluation's first child is the reference of its first row (by id), through the fork server, the sandbox, Warp
and the compiler, and if it fails ``evaluate`` stops with one line saying why, before any prediction runs.

A generated row's reference runs at the stage its predictions will (its arrays are then kept as the row's
reference, not computed twice). A shipped kernel's is only compiled: its run can fail for reasons of its own
(arguments no input can be built for, Warp's bounds checks), which the report counts per row.
"""

from __future__ import annotations

from builder.configs import spec
from builder.errors import HarnessUnavailable
from builder.evaluate.sandbox import Outcome


def stage(row: dict, evaluated: str) -> str:
    """The stage the preflight runs ``row``'s reference at; ``evaluated``: the stage its predictions run at."""
    return evaluated if spec(row["config"]).drawn else "compile"


def check(row_id: str, stage: str, outcome: Outcome) -> None:
    """Raise ``HarnessUnavailable`` unless the reference did what its stage asks (compiled; ran and left arrays)."""
    if outcome.status == "ok" and (stage == "compile" or outcome.outputs is not None):
        return
    if outcome.status == "ok":
        what = "it left no outputs"
    else:
        reason, detail = outcome.failure()
        what = f"{reason}: {detail}" if detail else reason
    hint = "; is --timeout long enough for this machine?" if outcome.status == "timeout" else ""
    raise HarnessUnavailable(f"the reference of row {row_id!r} failed ({what}){hint}")
