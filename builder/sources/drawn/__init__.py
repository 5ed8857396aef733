"""Generated rows: programs drawn from (seed, split, index), paired with what Warp emits for them.

``cuda-forward``, ``cuda-backward``, ``cpu`` and ``gpu-verified`` pair each program with a function of Warp's unit
(``builder.sources.drawn.records``). Every config of this source shares one shard plan: a shard is rows
``start..stop-1`` of a split, and each program is drawn once for every config in the shard. The whole programs
built around the same units are a source of their own (``builder.sources.standalone``), which draws its programs
here (``program_row``).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

from builder.build_options import BuildOptions
from builder.checks.dead_code import Live
from builder.checks.evidence import BuiltinCoverage, CategoryBalance, Verification
from builder.checks.ids import DuplicatesAcrossSplits, DuplicatesWithinSplit, UniqueIds
from builder.checks.near_duplicates import NearDuplicates
from builder.checks.row_checks import Hashes, IrFunction, NonEmpty, Placement
from builder.configs import ConfigSpec, spec, unit
from builder.errors import GPURequired
from builder.schema import SPLITS
from builder.sources.base import RowSource, rows_left_out
from builder.sources.plan import Shard, split_shards


class GeneratedSource(RowSource):
    name = "generated"

    def plan(self, opts: BuildOptions) -> list[Shard]:
        return [s for split in SPLITS for s in split_shards(opts, split)]

    def rows(self, opts: BuildOptions, shard: Shard, summary: dict) -> Iterator[dict]:
        from builder.sources.drawn.records import generated_rows  # imports Warp: only when rows are made

        yield from generated_rows(opts, shard.split, shard.start, shard.stop, summary)

    def shard_rows(self, options: tuple[BuildOptions, ...], shard: Shard, summary: dict) -> Iterator[tuple[str, dict]]:
        """Configs of units with the same GPU need share each program's draw, code generation and evidence
        (``unit_rows``)."""
        from builder.sources.drawn.records import unit_rows

        groups: dict[bool, list[BuildOptions]] = {}
        for opts in options:
            groups.setdefault(spec(opts.config).gpu, []).append(opts)
        for opts in options:  # in the order of options, as each config's evidence was gathered when built alone
            group = tuple(groups[spec(opts.config).gpu])
            if group[0] is opts:
                yield from unit_rows(group, shard.split, shard.start, shard.stop, summary)

    def report(self, summaries: list[dict], config: str) -> None:
        """One line per config with rows left out, by reason, over the build's shards (resumed ones included)."""
        report_left_out(summaries, config)

    def regenerated(self, config: str, row: dict, draw, coords: tuple[int, str, int]) -> dict | str:
        from builder.sources.drawn.regenerate import expected

        return expected(config, row, draw)

    def checks(self, config: str) -> list:
        return [
            Placement(),
            UniqueIds(),
            NonEmpty(),
            IrFunction(),
            Hashes(),
            *drawn_checks(Verification()),
        ]

    def require(self, opts: BuildOptions) -> None:
        if spec(opts.config).gpu:
            from builder.warp_backend import codegen

            codegen.init_quietly()  # Warp's no-driver warning would only repeat the one line GPURequired gives
            if not codegen.cuda_available():
                raise GPURequired()

    def size(self, opts: BuildOptions, split: str, n: int) -> str:
        if not _one_row_per_program(spec(opts.config)):  # rows and programs differ without any being invalid
            return f"{split}={n} rows from {opts.size(split)} programs"
        if n >= opts.size(split):
            return f"{split}={n}"
        return f"{split}={n} ({opts.size(split) - n} invalid rows left out)"


def drawn_checks(evidence) -> list:
    """The checks of rows of drawn programs after their text's: duplicates, categories, builtins, ``evidence``,
    liveness."""
    return [
        DuplicatesWithinSplit(),
        DuplicatesAcrossSplits(),
        NearDuplicates(),
        CategoryBalance(),
        BuiltinCoverage(),
        evidence,
        Live(),
    ]


def report_left_out(summaries: list[dict], config: str) -> None:
    left = rows_left_out(summaries, config)
    if left:
        reasons = ", ".join(f"{reason}: {n}" for reason, n in left.items())
        print(f"warp_cuda_ir {config}: {sum(left.values())} invalid rows left out ({reasons})", file=sys.stderr)


def _one_row_per_program(config: ConfigSpec) -> bool:
    """Whether every valid program gives exactly one row: not where a unit may be missing (a kernel without an
    adjoint has no backward row), nor with several units a program (gpu-verified)."""
    backward = any(unit(u).pass_ == "backward" for u in config.units)
    return config.units_per_program == 1 and not backward
