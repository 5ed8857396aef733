"""Repair rows: each drawn program broken by one seeded edit Warp rejects, with Warp's diagnostic, the working
kernel, the diff between them and the working kernel's evidence (``rows``).

``repair`` rows are numbered like a generated config's (``--num-train`` and friends, the same programs at the same
indices), so a repair row of a test program is in test, and its ``fixed_id`` names the cpu config's row of that
program. ``repair-real`` rows break the train kernels of a built ``real`` folder (``--real-data``, the kernels
``derived`` varies; never a validation or test kernel), are in train alone, and name real's cpu row. ``validate``
regenerates every row, Warp's diagnostic included (``builder.checks.repair``).
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Iterator

from builder.build_options import BuildOptions
from builder.checks.ids import UniqueIds
from builder.checks.repair import RepairAgreesWithCpu, RepairRegeneration, RepairRows
from builder.checks.row_checks import Placement
from builder.configs import spec
from builder.schema import SPLITS
from builder.sources.base import RowSource, count_left_out, rows_left_out
from builder.sources.plan import Shard, kernel_shards, split_shards

KERNELS_PER_SHARD = 64  # real train kernels a repair-real shard breaks


class RepairSource(RowSource):
    name = "repair"
    shared_shards = False

    def plan(self, opts: BuildOptions) -> list[Shard]:
        if not spec(opts.config).written:
            return [s for split in SPLITS for s in split_shards(opts, split, opts.config, self.name)]
        from builder.sources.derived.rows import source_kernels

        return kernel_shards(
            opts, len(source_kernels(opts.real_data, opts.derived_kernels)), KERNELS_PER_SHARD, self.name
        )

    def rows(self, opts: BuildOptions, shard: Shard, summary: dict) -> Iterator[dict]:
        from builder.sources.repair.rows import repair_rows, written_repair_rows  # import Warp: when rows are made

        left_out: Counter = Counter()
        if spec(opts.config).written:
            yield from written_repair_rows(opts, shard.start, shard.stop, left_out)
        else:
            yield from repair_rows(opts, shard.split, shard.start, shard.stop, left_out)
        count_left_out(summary, opts.config, left_out)

    def require(self, opts: BuildOptions) -> None:
        if spec(opts.config).written:
            from builder.sources.derived.rows import source_kernels

            source_kernels(opts.real_data, opts.derived_kernels)  # ConfigError naming what is missing

    def checks(self, config: str) -> list:
        return [Placement(), UniqueIds(), RepairRows()]

    def folder_checks(self) -> list:
        return [RepairRegeneration(), RepairAgreesWithCpu()]

    def report(self, summaries: list[dict], config: str) -> None:
        left = rows_left_out(summaries, config)
        if left:
            reasons = ", ".join(f"{reason}: {n}" for reason, n in left.items())
            print(f"warp_cuda_ir {config}: {sum(left.values())} rows left out ({reasons})", file=sys.stderr)
