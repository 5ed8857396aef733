"""Every generated kernel computes what it stores: the dead-assignment and ineffective-parameter shares.

Counted with the same name-level liveness pass as the generator's own test (``builder.analysis.liveness``). A row
fails when its program holds a dead assignment or an ineffective parameter (never read, or read only by dead
code): the generator builds kernels from their stores back, so any such row is a generator bug. Warp's own shipped
kernels measure 0-6% dead assignments and 2-6% unused parameters (``scripts/realism.py``).
"""

from __future__ import annotations

from collections import Counter

from builder.analysis.liveness import liveness
from builder.checks.base import MAX_OFFENDERS, ConfigCheck, Result, concat


class Live(ConfigCheck):
    name = "liveness"

    def check(self, config, tables):
        t = concat(tables, ["id", "python_source"])
        counts: Counter = Counter()
        offenders: list[str] = []
        failing = 0
        memo: dict[str, tuple] = {}  # cuda-backward and gpu-verified repeat programs: one pass per source
        for row_id, source in zip(t.column("id").to_pylist(), t.column("python_source").to_pylist()):
            if source not in memo:
                r = liveness(source)
                memo[source] = (r.assignments, r.dead, r.params, r.unused + len(r.idle_params))
            assignments, dead, params, ineffective = memo[source]
            counts.update(assignments=assignments, dead=dead, params=params, ineffective=ineffective)
            if dead or ineffective:
                failing += 1
                if len(offenders) < MAX_OFFENDERS:
                    offenders.append(row_id)
        dead_share = counts["dead"] / counts["assignments"] if counts["assignments"] else 0.0
        param_share = counts["ineffective"] / counts["params"] if counts["params"] else 0.0
        message = (
            f"dead assignments {counts['dead']}/{counts['assignments']} ({100 * dead_share:.2f}%), "
            f"ineffective parameters {counts['ineffective']}/{counts['params']} ({100 * param_share:.2f}%)"
        )
        data = {**counts, "dead_share": dead_share, "ineffective_parameter_share": param_share}
        if failing:
            return Result(
                self.name, config, "fail", f"{failing} rows with dead code: {message}", failing, offenders, data
            )
        return Result(self.name, config, "pass", message, 0, [], data)
