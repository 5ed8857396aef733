"""``real``'s splits as the split plan (``builder.shipped.splits``) promises them, read from the rows alone.

A held-out package's rows are all in ``test`` and a training package's all in ``train``; one kernel (its
``source_path``) is in one split; and no two kernels in different splits are equal once normalized or near
duplicates (the decontamination measure over each row's own kernel ``def``): a model trained on ``train`` never saw a
copy of a ``test`` or ``validation`` kernel. A failure names the pair.
"""

from __future__ import annotations

import pyarrow as pa

from builder.checks.base import MAX_OFFENDERS, ConfigCheck, Result
from builder.shipped.splits import POLICY, cross_split_pairs, own_kernel

# the one split every row of such a group is in
WHOLE = {"held-out": "test", "train-only": "train"}


class SplitIsolation(ConfigCheck):
    name = "split_isolation"

    def check(self, config: str, tables: dict[str, pa.Table]) -> Result:
        kernels: dict[str, tuple[str, str]] = {}  # source_path -> (split, own kernel)
        first_id: dict[str, str] = {}
        problems: list[str] = []
        columns = ("id", "split", "source_path", "split_group", "kernel_name", "python_source")
        for table in tables.values():
            for rid, row_split, path, group, name, source in zip(*(table.column(c).to_pylist() for c in columns)):
                if WHOLE.get(group, row_split) != row_split:
                    problems.append(f"{rid}: a {group} row in {row_split}")
                if path in kernels and kernels[path][0] != row_split:
                    problems.append(f"{rid}: {path} is in {kernels[path][0]} and {row_split}")
                if path not in kernels:
                    kernels[path] = (row_split, own_kernel(source, name))
                    first_id[path] = rid
        pairs = cross_split_pairs(kernels, POLICY.near_jaccard)
        problems += [
            f"{first_id[a]} ({kernels[a][0]}) ~ {first_id[b]} ({kernels[b][0]}): similarity {s}" for a, b, s in pairs
        ]
        if problems:
            return Result(
                self.name,
                config,
                "fail",
                f"{len(problems)} kernels cross the splits: " + "; ".join(problems[:3]),
                len(problems),
                problems[:MAX_OFFENDERS],
            )
        counts = {s: sum(1 for v in kernels.values() if v[0] == s) for s in tables}
        return Result(
            self.name,
            config,
            "pass",
            f"{len(kernels)} kernels ({', '.join(f'{s} {n}' for s, n in counts.items())}): none equal or near"
            f" (Jaccard>={POLICY.near_jaccard}) to a kernel of another split; held-out packages all in test",
            len(kernels),
        )
