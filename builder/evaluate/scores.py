"""Scores from per-prediction results: rates, unbiased pass@k, per-category tables, the report file.

pass@k for a row with n samples of which c are functional is 1 - C(n-c, k) / C(n, k) (the unbiased estimator
of Chen et al., 2021), averaged over the rows that have at least k samples; a row with fewer than k samples
does not count towards pass@k (its pass@1 still does), and a k no row reaches is left out of the report.
Rows whose functional result is not scored (``PredictionResult.not_scored``) count in exact_match and compiled only; the
report counts them by reason (``not_scored``).
"""

from __future__ import annotations

import json
import os
import uuid
from collections import Counter
from math import comb
from pathlib import Path

from builder.evaluate.functional import NO_GPU, PredictionResult

KS = (1, 5, 10)


def pass_at_k(n: int, c: int, k: int) -> float:
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"pass@k needs 0 <= c <= n and 1 <= k <= n, got n={n} c={c} k={k}")
    return 1.0 - comb(n - c, k) / comb(n, k)


def _rate(values: list) -> float | None:
    """Mean of booleans; None if any is None (not evaluable here) or there are none."""
    if not values or any(v is None for v in values):
        return None
    return round(sum(map(bool, values)) / len(values), 6)


def _scored(results: list[PredictionResult], field: str) -> list[PredictionResult]:
    """The results ``field`` is scored over: every one, except rows left out of ``functional``."""
    return [r for r in results if field != "functional" or not r.not_scored]


def _pass_at(results: list[PredictionResult], field: str) -> dict[str, float | None]:
    by_row: dict[str, list] = {}
    for r in _scored(results, field):
        by_row.setdefault(r.id, []).append(getattr(r, field))
    out: dict[str, float | None] = {}
    for k in KS:
        rows = [v for v in by_row.values() if len(v) >= k]
        if not rows:
            continue
        if any(x is None for v in rows for x in v):
            out[str(k)] = None
            continue
        out[str(k)] = round(sum(pass_at_k(len(v), sum(map(bool, v)), k) for v in rows) / len(rows), 6)
    return out


def scores(results: list[PredictionResult]) -> dict:
    python = [r for r in results if r.loaded is not None]
    return {
        "rows": len({r.id for r in results}),
        "predictions": len(results),
        "exact_match": _rate([r.exact_match for r in results]),
        **({"loaded": _rate([r.loaded for r in python])} if python else {}),
        "compiled": _rate([r.compiled for r in results]),
        "functional": _rate([r.functional for r in _scored(results, "functional")]),
        "functional_rows": len({r.id for r in _scored(results, "functional")}),
        "pass_at_k": _pass_at(results, "functional"),
        "compile_pass_at_k": _pass_at(results, "compiled"),
    }


def build(
    config: str,
    split: str,
    split_rows: int,
    results: list[PredictionResult],
    categories: dict[str, str],
    packages: dict[str, str] | None = None,
    groups: dict[str, str] | None = None,
) -> dict:
    """The report; ``packages`` (id -> package, the ``real`` config's rows) adds a ``by_package`` table, so a score
    on real code is read per project, and ``groups`` (id -> split group) a ``by_group`` one: unseen modules of seen
    packages (in-project) apart from packages held out whole (held-out)."""
    by_cat: dict[str, list[PredictionResult]] = {}
    by_pkg: dict[str, list[PredictionResult]] = {}
    by_group: dict[str, list[PredictionResult]] = {}
    for r in results:
        by_cat.setdefault(categories[r.id], []).append(r)
        if packages:
            by_pkg.setdefault(packages[r.id], []).append(r)
        if groups:
            by_group.setdefault(groups[r.id], []).append(r)
    failures = Counter(r.reason for r in results if r.reason and r.reason != NO_GPU)
    not_evaluated = Counter(r.reason for r in results if r.reason == NO_GPU and r.compiled)
    not_scored = Counter(reason for reason in {r.id: r.not_scored for r in results if r.not_scored}.values())
    return {
        "config": config,
        "split": split,
        "split_rows": split_rows,
        **scores(results),
        "functional_evaluated": not any(r.reason == NO_GPU for r in results),
        "by_category": {c: scores(rs) for c, rs in sorted(by_cat.items())},
        **({"by_package": {p: scores(rs) for p, rs in sorted(by_pkg.items())}} if packages else {}),
        **({"by_group": {g: scores(rs) for g, rs in sorted(by_group.items())}} if groups else {}),
        "failures": dict(sorted(failures.items(), key=lambda kv: (-kv[1], kv[0]))),
        "not_evaluated": dict(sorted(not_evaluated.items())),
        "not_scored": dict(sorted(not_scored.items(), key=lambda kv: (-kv[1], kv[0]))),
        "results": [r.as_dict() for r in results],
    }


def write(report: dict, path: Path) -> None:
    """Atomically: a temporary file beside the target, then os.replace."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        tmp.write_text(json.dumps(report, indent=1) + "\n")
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def _cell(v) -> str:
    return "-" if v is None else f"{v:.3f}"


def table(report: dict) -> str:
    ks = list(report["pass_at_k"])
    head = ["", "rows", "preds", "exact", "compiled", "functional", *(f"pass@{k}" for k in ks)]
    lines = [head]
    groups = [
        *report["by_category"].items(),
        *((f"group {g}", s) for g, s in report.get("by_group", {}).items()),
        *((f"package {p}", s) for p, s in report.get("by_package", {}).items()),
    ]
    for name, s in [("all", report), *groups]:
        cells = [_cell(s[f]) for f in ("exact_match", "compiled", "functional")]
        lines.append([name, str(s["rows"]), str(s["predictions"]), *cells, *(_cell(s["pass_at_k"].get(k)) for k in ks)])
    widths = [max(len(row[i]) for row in lines) for i in range(len(head))]
    text = [f"{report['config']}/{report['split']}: {report['predictions']} predictions for {report['rows']} rows"]
    text += [
        "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))) for row in lines
    ]
    if report["failures"]:
        text.append("failures: " + ", ".join(f"{k} {v}" for k, v in report["failures"].items()))
    if report["not_scored"]:
        text.append("rows left out of functional: " + ", ".join(f"{k} {v}" for k, v in report["not_scored"].items()))
    if not report["functional_evaluated"]:
        text.append("functional: not evaluated (CUDA rows need a GPU; compile stage only)")
    return "\n".join(text)
