"""Whole programs: each drawn program as a complete C++ program and a complete CUDA program around Warp's units.

The ``standalone`` config. Its programs are the generated configs' (drawn from (seed, split, index) by
``builder.sources.drawn.program_row``), and its shards are planned as theirs are, so row ``i`` of a split is the
same program in every config; its rows are written by ``rows`` (host code: ``builder.standalone``; Warp's side:
``builder.warp_backend.standalone``). Validated by the text and evidence checks of ``builder.checks.standalone``,
a sample built with g++ and run (``StandaloneRun``), and the determinism check every drawn row gets.
"""

from __future__ import annotations

from collections.abc import Iterator

from builder.build_options import BuildOptions
from builder.checks.ids import UniqueIds
from builder.checks.row_checks import Placement
from builder.checks.standalone import StandaloneEvidence, StandaloneRun, StandaloneText
from builder.schema import SPLITS
from builder.sources.base import RowSource
from builder.sources.drawn import drawn_checks, report_left_out
from builder.sources.plan import Shard, split_shards


class StandaloneSource(RowSource):
    name = "standalone"

    def plan(self, opts: BuildOptions) -> list[Shard]:
        """The generated configs' shard bounds; each shard writes this config alone (its progress has a line of its
        own, as its programs are not the generated configs' rows)."""
        return [s for split in SPLITS for s in split_shards(opts, split, opts.config, self.name)]

    def rows(self, opts: BuildOptions, shard: Shard, summary: dict) -> Iterator[dict]:
        from builder.grammar.sample import sample
        from builder.sources.standalone.rows import program_rows  # imports Warp: only when rows are made

        yield from program_rows(opts, shard.split, shard.start, shard.stop, sample, summary)

    def report(self, summaries: list[dict], config: str) -> None:
        report_left_out(summaries, config)

    def regenerated(self, config: str, row: dict, draw, coords: tuple[int, str, int]) -> dict | str:
        """The row's programs, Makefile and inputs from its program drawn again (never compiled or run)."""
        from builder.sources.standalone.rows import regenerate

        if isinstance(draw, str):
            return draw
        program, nsha, _ = draw
        try:
            want = regenerate(program, *coords)
        except Exception as exc:  # noqa: BLE001 - a row that cannot be regenerated is a failure, not a crash
            return type(exc).__name__
        return want | {"python_source": program.source, "normalized_sha256": nsha}

    def checks(self, config: str) -> list:
        # whole programs instead of an ir column, and their own evidence
        return [Placement(), UniqueIds(), StandaloneText(), *drawn_checks(StandaloneEvidence())]

    def folder_checks(self) -> list:
        """A sample of the whole programs is built with g++ and run."""
        return [StandaloneRun()]

    def require(self, opts: BuildOptions) -> None:
        from builder.standalone.toolchain import require_compilers

        require_compilers(opts.verify)

    def size(self, opts: BuildOptions, split: str, n: int) -> str:
        # a kernel taking a mesh or using tiles has no standalone row: rows and programs differ without any invalid
        return f"{split}={n} rows from {opts.size(split)} programs"
