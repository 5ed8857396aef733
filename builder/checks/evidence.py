"""What the rows say about themselves: categories, builtins, and the compile/execute evidence they carry."""

from __future__ import annotations

from collections import Counter

import pyarrow as pa
import pyarrow.compute as pc

from builder.checks.base import ConfigCheck, Result, concat, first_ids
from builder.configs import spec
from builder.folder_format import infer_categories
from builder.grammar.policy import CATEGORIES

EVIDENCE = ("compiled", "executed", "outputs_finite", "outputs_nondegenerate", "grads_finite")
EXECUTION = ("executed", "outputs_finite", "outputs_nondegenerate", "grads_finite")  # required of execute rows


class CategoryBalance(ConfigCheck):
    """Counts per category (informational); a category the grammar does not have fails."""

    name = "category_balance"

    def check(self, config, tables):
        t = concat(tables, ["id", "index", "category"])
        cycle = infer_categories(t.column("index").to_pylist(), t.column("category").to_pylist())
        counts = Counter(t.column("category").to_pylist())
        unknown = sorted(c for c in counts if c not in CATEGORIES)
        bad_ids = first_ids(t, pc.is_in(t.column("category"), pa.array(unknown, pa.string()))) if unknown else []
        message = (f"unknown categories {unknown}; " if unknown else "") + (
            f"counts over {len(cycle)} categories: " + ", ".join(f"{c}={counts.get(c, 0)}" for c in cycle)
        )
        data = {"counts": dict(counts), "categories": list(cycle)}
        return Result(self.name, config, "fail" if unknown else "info", message, len(counts), bad_ids, data)


class BuiltinCoverage(ConfigCheck):
    name = "builtin_coverage"

    def check(self, config, tables):
        rows = concat(tables, ["builtins"]).column("builtins").to_pylist()
        counts = Counter(b for bs in rows for b in sorted(set(bs or [])))
        by_rows = dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))  # the same JSON under any hash seed
        return Result(
            self.name, config, "info", f"{len(counts)} distinct builtins", len(counts), [], {"builtins": by_rows}
        )


class Verification(ConfigCheck):
    """Every row carries the evidence its verify level promises: compiled for compile and execute rows;
    executed, finite and non-degenerate outputs, finite gradients for execute rows; a GPU match in gpu-verified.
    ``executed=False``: rows compiled, never executed (shipped kernels), whose evidence is compilation alone."""

    name = "verification"

    def __init__(self, executed: bool = True):
        self.executed = executed

    def check(self, config, tables):
        evidence = EVIDENCE if self.executed else ("compiled",)
        gpu = ("gpu_match",) if spec(config).gpu else ()
        t = concat(tables, ["id", "verify", *evidence, *gpu])
        levels = set(t.column("verify").to_pylist())
        shares = {col: _share(t, col) for col in evidence + gpu}
        required = (["compiled"] if levels & {"compile", "execute"} else []) + (
            list(EXECUTION) if "execute" in levels and self.executed else []
        )
        problems, bad = [], None
        for col in required + list(gpu):
            missing = pc.invert(pc.fill_null(t.column(col), False))
            if col in EXECUTION:
                missing = pc.and_(missing, pc.equal(t.column("verify"), "execute"))
            if pc.any(missing).as_py():
                problems.append(f"{col}={100 * shares[col]:.1f}%")
                bad = missing if bad is None else pc.or_(bad, missing)
        message = f"verify={','.join(sorted(levels))}: " + ", ".join(f"{k}={100 * v:.1f}%" for k, v in shares.items())
        if problems:
            message = f"required 100% but {', '.join(problems)}; " + message
        offenders = first_ids(t, bad) if bad is not None else []
        return Result(
            self.name, config, "fail" if problems else "pass", message, len(problems), offenders, {"shares": shares}
        )


def _share(t: pa.Table, column: str) -> float:
    if not t.num_rows:
        return 0.0
    return round(pc.sum(pc.cast(pc.fill_null(t.column(column), False), pa.int64())).as_py() / t.num_rows, 4)
