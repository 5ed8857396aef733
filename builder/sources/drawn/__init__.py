"""Generated rows: programs drawn from (seed, split, index), paired with what Warp emits for them.

``cuda-forward``, ``cuda-backward``, ``cpu`` and ``gpu-verified`` pair each program with a function of Warp's unit
(``builder.sources.drawn.records``); ``standalone`` with two whole programs built around the units
(``builder.sources.drawn.standalone_rows``). Every config of this source shares one shard plan: a shard is rows
``start..stop-1`` of a split, and each program is drawn once per config from its coordinates.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

from builder.build_options import BuildOptions
from builder.checks.dead_code import Live
from builder.checks.determinism import Determinism
from builder.checks.evidence import BuiltinCoverage, CategoryBalance, Verification
from builder.checks.ids import DuplicatesAcrossSplits, DuplicatesWithinSplit, UniqueIds
from builder.checks.near_duplicates import NearDuplicates
from builder.checks.row_checks import Hashes, IrFunction, NonEmpty, Placement
from builder.checks.standalone import StandaloneEvidence, StandaloneRun, StandaloneText
from builder.configs import ConfigSpec, spec, unit
from builder.errors import GPURequired
from builder.schema import SPLITS
from builder.sources.base import RowSource, rows_left_out
from builder.sources.drawn import regenerate
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
        (``unit_rows``); whole-program configs are written apart."""
        from builder.sources.drawn.records import unit_rows

        groups: dict[bool, list[BuildOptions]] = {}
        for opts in options:
            if not spec(opts.config).programs:
                groups.setdefault(spec(opts.config).gpu, []).append(opts)
        for opts in options:  # in the order of options, as each config's evidence was gathered when built alone
            config = spec(opts.config)
            if config.programs:
                yield from ((opts.config, row) for row in self.rows(opts, shard, summary))
            elif groups.get(config.gpu, [None])[0] is opts:
                yield from unit_rows(tuple(groups[config.gpu]), shard.split, shard.start, shard.stop, summary)

    def report(self, summaries: list[dict], config: str) -> None:
        """One line per config with rows left out, by reason, over the build's shards (resumed ones included)."""
        left = rows_left_out(summaries, config)
        if left:
            reasons = ", ".join(f"{reason}: {n}" for reason, n in left.items())
            print(f"warp_cuda_ir {config}: {sum(left.values())} invalid rows left out ({reasons})", file=sys.stderr)

    def folder_checks(self) -> list:
        """Every row regenerates from its (seed, split, index); a sample of whole programs is built and run."""
        return [Determinism(regenerate.regenerate, regenerate.expected), StandaloneRun()]

    def checks(self, config: str) -> list:
        if spec(config).programs:  # whole programs instead of an ir column, and their own evidence
            middle, evidence = [StandaloneText()], StandaloneEvidence()
        else:
            middle, evidence = [NonEmpty(), IrFunction(), Hashes()], Verification()
        return [
            Placement(),
            UniqueIds(),
            *middle,
            DuplicatesWithinSplit(),
            DuplicatesAcrossSplits(),
            NearDuplicates(),
            CategoryBalance(),
            BuiltinCoverage(),
            evidence,
            Live(),
        ]

    def require(self, opts: BuildOptions) -> None:
        config = spec(opts.config)
        if config.gpu:
            from builder.warp_backend import codegen

            codegen.init_quietly()  # Warp's no-driver warning would only repeat the one line GPURequired gives
            if not codegen.cuda_available():
                raise GPURequired()
        if config.programs:
            from builder.standalone.toolchain import require_compilers

            require_compilers(opts.verify)

    def size(self, opts: BuildOptions, split: str, n: int) -> str:
        if not _one_row_per_program(spec(opts.config)):  # rows and programs differ without any being invalid
            return f"{split}={n} rows from {opts.size(split)} programs"
        if n >= opts.size(split):
            return f"{split}={n}"
        return f"{split}={n} ({opts.size(split) - n} invalid rows left out)"


def _one_row_per_program(config: ConfigSpec) -> bool:
    """Whether every valid program gives exactly one row: not where a unit may be missing (a kernel without an
    adjoint has no backward row), nor with several units a program (gpu-verified), nor for whole programs (a kernel
    taking a mesh or using tiles has no standalone row)."""
    backward = any(unit(u).pass_ == "backward" for u in config.units)
    return not config.programs and config.units_per_program == 1 and not backward
