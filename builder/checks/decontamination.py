"""``real``'s evaluation splits (validation and test: written kernels a model is scored on) share no program with the
generated configs a model trains on. (Within ``real``, near-copies never straddle its splits: ``checks.splits``.)

Run when the folder has ``real`` and at least one generated config, with ``builder.shipped.overlap``: every distinct
``python_source`` of real's validation and test rows against every distinct generated one. An exact duplicate (equal
source, or equal normalized form: identifiers by order of appearance, literals as ``N``) fails: a model trained on
the generated configs would have seen that evaluation kernel. Near duplicates (MinHash LSH over normalized token
5-grams, confirmed with the exact Jaccard similarity >= ``NEAR_JACCARD``) are reported; they fail when more than
``NEAR_FAIL_SHARE`` of the real kernels have one, since a few short kernels (a single ``a[i] = b[i] * s``) may come
close to a drawn program by chance, while many would mean the grammar reproduces the shipped code. The share is
also taken per package (the ``package`` column): a score on one project must not rest on kernels the generator
reproduces, even when the other projects dilute them.
"""

from __future__ import annotations

import pyarrow as pa

from builder.checks.base import MAX_OFFENDERS, Check, Context, Result
from builder.configs import spec
from builder.grammar import siblings
from builder.shipped.overlap import decontaminate
from builder.shipped.splits import POLICY

# normalized 5-gram Jaccard similarity that makes a near duplicate: the one real's split plan keeps apart
NEAR_JACCARD = POLICY.near_jaccard
NEAR_FAIL_SHARE = 0.01  # near duplicates allowed, as a share of the distinct real kernels
EVALUATED = ("validation", "test")  # real's splits a model is scored on (validation: where choices are made)


class Decontamination(Check):
    name = "decontamination"

    def run(self, context: Context) -> Result:
        tables = context.tables
        # the evaluation side: the shipped configs' evaluation splits; the generated configs are trained on
        shipped = [c for c in tables if spec(c).shipped]
        generated = [c for c in tables if spec(c).drawn]  # the drawn programs (repair's: the same programs, broken)
        evaluated = {c: {s: t for s, t in tables[c].items() if s in EVALUATED} for c in shipped}
        label = ",".join(shipped)
        if not any(evaluated.values()) or not generated:
            return Result(self.name, label, "skip", "needs real's validation or test split and a generated config")
        tables = {**tables, **evaluated}
        real = [p for c in shipped for p in _pairs(tables[c])]
        # a generated module may hold sibling kernels before the row's: each is text a model trains on, and is
        # compared alone (a real kernel inside a long module would share too few shingles with all of it)
        synthetic = [
            (rid if k == len(units) - 1 else f"{rid}#sibling{k}", unit)
            for c in generated
            for rid, src in _pairs(tables[c])
            for units in [siblings.units(src)]
            for k, unit in enumerate(units)
        ]
        r = decontaminate(real, synthetic, threshold=NEAR_JACCARD)
        exact = sorted(set(r.exact_source) | set(r.exact_normalized))
        near_real = sorted({i for i, _, _ in r.near})
        share = len(near_real) / r.real if r.real else 0.0
        per_package = _per_package(tables, shipped, near_real, [i for i, _ in exact])
        worst = max((v["near_share"] for v in per_package.values()), default=0.0)
        message = (
            f"{r.real} distinct real sources vs {r.synthetic} distinct training ones ({', '.join(generated)}): "
            f"{len(r.exact_source)} equal sources, {len(r.exact_normalized)} equal normalized forms, "
            f"{len(near_real)} with a near duplicate (Jaccard>={NEAR_JACCARD}, {100 * share:.2f}%; "
            f"fails above {100 * NEAR_FAIL_SHARE:g}%, overall or in one package)"
        )
        if per_package:
            message += "; per package: " + ", ".join(
                f"{p} {v['exact']} equal/{v['near']} near of {v['kernels']}" for p, v in per_package.items()
            )
        data = {
            "exact": [list(p) for p in exact[:50]],
            "near": [list(p) for p in r.near[:50]],
            "near_share": round(share, 4),
            "per_package": per_package,
        }
        failed = bool(exact) or share > NEAR_FAIL_SHARE or worst > NEAR_FAIL_SHARE
        offenders = [i for i, _ in exact] + [i for i in near_real if i not in {i for i, _ in exact}]
        return Result(
            self.name,
            label,
            "fail" if failed else "pass",
            message,
            len(exact) + len(near_real),
            offenders[:MAX_OFFENDERS],
            data,
        )


def _pairs(splits: dict[str, pa.Table]) -> list[tuple[str, str]]:
    return [
        (rid, src)
        for t in splits.values()
        for rid, src in zip(t.column("id").to_pylist(), t.column("python_source").to_pylist())
        if src
    ]


def _per_package(
    tables: dict[str, dict[str, pa.Table]], shipped: list[str], near: list[str], exact: list[str]
) -> dict[str, dict]:
    """Per package: its distinct real sources (each named, as ``decontaminate`` names it, by its smallest id) and
    how many of them have an equal or a near generated program."""
    smallest: dict[str, tuple[str, str]] = {}  # source -> (smallest id, package)
    for c in shipped:
        for t in tables[c].values():
            if "package" not in t.column_names:
                continue
            cols = (t.column(n).to_pylist() for n in ("id", "python_source", "package"))
            for rid, src, pkg in zip(*cols):
                if src and (src not in smallest or rid < smallest[src][0]):
                    smallest[src] = (rid, pkg)
    package = dict(smallest.values())
    out: dict[str, dict] = {}
    for pkg in sorted(package.values()):
        out.setdefault(pkg, {"kernels": 0, "exact": 0, "near": 0})["kernels"] += 1
    for key, ids in (("exact", set(exact)), ("near", set(near))):
        for rid in ids:
            if rid in package:
                out[package[rid]][key] += 1
    for v in out.values():
        v["near_share"] = round(v["near"] / v["kernels"], 4)
    return out
