"""The ``real`` config (shipped kernels, an evaluation set) shares no program with the generated splits.

Run when the folder has ``real`` and at least one generated config, with ``builder.sources.shipped.overlap``: every
distinct real ``python_source`` against every distinct generated one. An exact duplicate (equal source, or equal
normalized form: identifiers by order of appearance, literals as ``N``) fails: a model trained on the generated
configs would have seen that evaluation kernel. Near duplicates (MinHash LSH over normalized token 5-grams,
confirmed with the exact Jaccard similarity >= ``NEAR_JACCARD``) are reported; they fail when more than
``NEAR_FAIL_SHARE`` of the real kernels have one, since a few short kernels (a single ``a[i] = b[i] * s``) may come
close to a drawn program by chance, while many would mean the grammar reproduces the shipped code.
"""

from __future__ import annotations

import pyarrow as pa

from builder import sources
from builder.checks.base import MAX_OFFENDERS, Result
from builder.sources.shipped.overlap import decontaminate

NEAR_JACCARD = 0.8  # normalized 5-gram Jaccard similarity that makes a near duplicate
NEAR_FAIL_SHARE = 0.01  # near duplicates allowed, as a share of the distinct real kernels


class Decontamination:
    name = "decontamination"

    def run(self, tables: dict[str, dict[str, pa.Table]]) -> Result:
        generated = [c for c in tables if sources.source_of(c).regenerates]
        shipped = [c for c in tables if not sources.source_of(c).regenerates]
        label = ",".join(shipped)
        if not shipped or not generated:
            return Result(self.name, label, "skip", "needs shipped kernels and a generated config in one folder")
        real = [p for c in shipped for p in _pairs(tables[c])]
        synthetic = [p for c in generated for p in _pairs(tables[c])]
        r = decontaminate(real, synthetic, threshold=NEAR_JACCARD)
        exact = sorted(set(r.exact_source) | set(r.exact_normalized))
        near_real = sorted({i for i, _, _ in r.near})
        share = len(near_real) / r.real if r.real else 0.0
        message = (
            f"{r.real} distinct real sources vs {r.synthetic} distinct generated ones ({', '.join(generated)}): "
            f"{len(r.exact_source)} equal sources, {len(r.exact_normalized)} equal normalized forms, "
            f"{len(near_real)} with a near duplicate (Jaccard>={NEAR_JACCARD}, {100 * share:.2f}%; "
            f"fails above {100 * NEAR_FAIL_SHARE:g}%)"
        )
        data = {
            "exact": [list(p) for p in exact[:50]],
            "near": [list(p) for p in r.near[:50]],
            "near_share": round(share, 4),
        }
        failed = bool(exact) or share > NEAR_FAIL_SHARE
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
