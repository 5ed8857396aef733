"""Ids and exact duplicates: every id once; no normalized program in two splits; duplicates within a split counted.

``gpu-verified`` stores two rows (forward, backward) per program, so duplicates are counted over its forward
rows: programs, not rows.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from builder.checks.base import MAX_OFFENDERS, ConfigCheck, Result, concat, first_ids
from builder.configs import spec


def programs(config: str, tables: dict[str, pa.Table]) -> dict[str, pa.Table]:
    if spec(config).units_per_program == 1:
        return tables
    # a row per pass (gpu-verified): the forward rows are the programs
    return {s: t.filter(pc.equal(t.column("pass"), "forward")) for s, t in tables.items()}


class UniqueIds(ConfigCheck):
    name = "unique_ids"

    def check(self, config, tables):
        ids = concat(tables, ["id"]).column("id")
        dup = [v["values"] for v in pc.value_counts(ids).to_pylist() if v["counts"] > 1]
        if dup:
            return Result(
                self.name, config, "fail", f"{len(dup)} ids occur more than once", len(dup), dup[:MAX_OFFENDERS]
            )
        return Result(self.name, config, "pass", f"{len(ids)} ids, all unique")


class DuplicatesWithinSplit(ConfigCheck):
    """Informational: the share of a split's programs whose normalized form another of its programs has."""

    name = "duplicates_within_split"

    def check(self, config, tables):
        rate, offenders, total = {}, [], 0
        for split, t in programs(config, tables).items():
            col = t.column("normalized_sha256")
            n_dup = t.num_rows - len(pc.unique(col))
            rate[split] = round(n_dup / t.num_rows, 4) if t.num_rows else 0.0
            total += n_dup
            if n_dup:
                repeated = [v["values"] for v in pc.value_counts(col).to_pylist() if v["counts"] > 1]
                offenders += first_ids(t, pc.is_in(col, pa.array(repeated)))
        message = "exact normalized duplicates within a split: " + ", ".join(
            f"{s}={100 * r:.2f}%" for s, r in rate.items()
        )
        return Result(self.name, config, "info", message, total, offenders[:MAX_OFFENDERS], {"rate": rate})


class DuplicatesAcrossSplits(ConfigCheck):
    name = "duplicates_across_splits"

    def check(self, config, tables):
        first_split: dict[str, str] = {}
        cross = []
        for split, t in programs(config, tables).items():
            hashes = t.column("normalized_sha256").to_pylist()
            cross += [rid for rid, h in zip(t.column("id").to_pylist(), hashes) if first_split.get(h, split) != split]
            for h in hashes:
                first_split.setdefault(h, split)
        if cross:
            message = f"{len(cross)} rows share normalized_sha256 with a row in another split"
            return Result(self.name, config, "fail", message, len(cross), cross[:MAX_OFFENDERS])
        return Result(self.name, config, "pass", "no normalized program appears in two splits")
