"""Derived rows: kernels made from ``real``'s train kernels by seeded transformations (``builder.derive``), paired
with what Warp emits for them (``rows``). Train only: a kernel of validation, test or a held-out package is never
varied, and ``decontam`` checks that no variant comes near one.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Iterator

from builder.build_options import BuildOptions
from builder.checks.derived import DerivedDecontamination, DerivedRegeneration
from builder.checks.evidence import BuiltinCoverage, Verification
from builder.checks.ids import UniqueIds
from builder.checks.row_checks import Hashes, IrFunction, NonEmpty, Placement
from builder.sources.base import RowSource, count_left_out, rows_left_out
from builder.sources.plan import Shard, kernel_shards

KERNELS_PER_SHARD = 24  # source kernels a shard varies (about 100 variants, 300 rows at the default 5)


class DerivedSource(RowSource):
    name = "derived"
    shared_shards = False
    whole_unit = False  # a row's unit holds its kernel alone, emitted as real's are

    def plan(self, opts: BuildOptions) -> list[Shard]:
        from builder.sources.derived.rows import source_kernels

        return kernel_shards(
            opts, len(source_kernels(opts.real_data, opts.derived_kernels)), KERNELS_PER_SHARD, self.name
        )

    def rows(self, opts: BuildOptions, shard: Shard, summary: dict) -> Iterator[dict]:
        from builder.sources.derived.rows import derived_rows

        left_out: Counter = Counter()
        yield from derived_rows(opts, shard.start, shard.stop, left_out)
        count_left_out(summary, opts.config, left_out)

    def require(self, opts: BuildOptions) -> None:
        from builder.sources.derived.rows import source_kernels

        source_kernels(opts.real_data, opts.derived_kernels)  # ConfigError naming what is missing

    def checks(self, config: str) -> list:
        return [
            NonEmpty(),
            Placement(),
            UniqueIds(),
            IrFunction(),
            Hashes(),
            BuiltinCoverage(),
            Verification(),  # a row's verify is the level it reached: execute only where its run passed
        ]

    def folder_checks(self) -> list:
        return [DerivedRegeneration(), DerivedDecontamination()]

    def note(self, opts: BuildOptions) -> str:
        if opts.verify == "none":
            return ""
        if opts.verify == "compile":
            return "compiled"
        return "compiled; run on the CPU where inputs can be built from the argument types"

    def report(self, summaries: list[dict], config: str) -> None:
        left = rows_left_out(summaries, config)
        if left:
            reasons = ", ".join(f"{reason}: {n}" for reason, n in left.items())
            print(f"warp_cuda_ir {config}: {sum(left.values())} rows left out ({reasons})", file=sys.stderr)

    def size(self, opts: BuildOptions, split: str, n: int) -> str:
        return f"{split}={n} rows"
