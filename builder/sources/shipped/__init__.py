"""Shipped rows: the kernels warp-lang and the packages built on it ship (``builder.shipped.packages``), the ``real``
config, in three splits (``builder.shipped.splits``: whole packages held out in test, the others split by module).

Each split's modules are cut into contiguous runs, one shard each (``plan.real_shards``, which is also the one check
of the installed packages); a shard's rows are its modules' kernels for every target and pass (``rows``), compiled,
never executed. What could not be used is counted by reason in the shard's summary, and the build prints the merged
counts. ``decontam`` is the folder check this source adds to ``validate``.
"""

from __future__ import annotations

from collections.abc import Iterator

from builder.build_options import BuildOptions
from builder.checks.decontamination import Decontamination
from builder.checks.evidence import BuiltinCoverage, Verification
from builder.checks.ids import UniqueIds
from builder.checks.row_checks import Hashes, IrFunction, NonEmpty, Placement
from builder.checks.splits import SplitIsolation
from builder.sources.base import RowSource, count_left_out
from builder.sources.plan import Shard
from builder.sources.shipped.plan import real_shards
from builder.sources.shipped.rows import Sample, Summary, evidence, report, shipped_rows


def overload_declarations(source: str) -> list[str]:
    """The top-level ``wp.overload(...)`` calls of a row's source, as written."""
    import ast

    lines = source.splitlines()
    return [
        "\n".join(lines[s.lineno - 1 : s.end_lineno])
        for s in ast.parse(source).body
        if isinstance(s, ast.Expr)
        and isinstance(s.value, ast.Call)
        and isinstance(s.value.func, ast.Attribute)
        and s.value.func.attr == "overload"
        and isinstance(s.value.func.value, ast.Name)
        and s.value.func.value.id == "wp"
    ]


class ShippedSource(RowSource):
    name = "shipped"
    whole_unit = False  # a row's unit holds its kernel alone; Warp's unit for the shipped module holds them all
    shared_shards = False  # a shipped config plans its own shards (by module, per split)

    def plan(self, opts: BuildOptions) -> list[Shard]:
        return real_shards(opts)

    def rows(self, opts: BuildOptions, shard: Shard, summary: dict) -> Iterator[dict]:
        counts = Summary()
        sample = Sample(modules=shard.modules, split=shard.split)
        yield from shipped_rows(opts, sample, counts)  # imports Warp, when rows are made
        summary.update(counts.to_json())
        count_left_out(summary, opts.config, counts.rows_left_out)  # what every source records

    def checks(self, config: str) -> list:
        # shipped kernels: nothing to regenerate, no category cycle, never executed; near-copies in one split
        return [
            SplitIsolation(),
            NonEmpty(),
            Placement(),
            UniqueIds(),
            IrFunction(),
            Hashes(),
            BuiltinCoverage(),
            Verification(executed=False),
        ]

    def folder_checks(self) -> list:
        """real's evaluation splits share no program with the generated configs beside it (an evaluation set)."""
        return [Decontamination()]

    def public_reference(self, row: dict) -> tuple[str, int]:
        """The shipped module, imported by name: Warp writes the unit of the module the kernel is in; with the
        row's ``wp.overload(...)`` declarations run in it after the import (a ``real`` row of a generic kernel
        its package never instantiates carries the one it was built from; the package's own are run again, which
        Warp takes as the same overload)."""
        path = row["source_path"].rsplit(":", 1)[0]
        name = path.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
        declared = overload_declarations(row["python_source"])
        return f"module:{name}:{row['kernel_name']}" + "".join(f"\n{d}" for d in declared), 0

    def note(self, opts: BuildOptions) -> str:
        if evidence(opts.verify) == "none":
            return ""
        return "compiled; shipped kernels are never executed" if opts.verify == "execute" else "compiled"

    def report(self, summaries: list[dict], config: str) -> None:
        report(Summary.merged(summaries), config)
