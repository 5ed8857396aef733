"""The row-source protocol: what the driver, the ``datasets`` builder, the validator and the build's report need
from wherever rows come from.

A source owns a set of configs. It plans their shards from the build options (``plan``), writes a shard's rows of
one config (``rows``, counting what it left out in a JSON-ready ``summary``), says which checks ``validate`` runs on
a config (``checks``) and on the whole folder (``folder_checks``), and how a config's size is reported. Shards are
``builder.sources.plan.Shard``s; a shard belongs to the source named in ``Shard.source``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, ClassVar

from builder.configs import names

if TYPE_CHECKING:
    from builder.build_options import BuildOptions
    from builder.checks.base import Check
    from builder.sources.plan import Shard


class RowSource(ABC):
    name: ClassVar[str]  # the value of Shard.source for this source's shards
    # a row's module_source is the whole unit Warp's public pipeline writes for its reference (``public_reference``)
    whole_unit: ClassVar[bool] = True
    # one shard writes every config of the source in the build (generated: one program, every target); False: each
    # config has shards of its own (shipped: real collects the packages' modules)
    shared_shards: ClassVar[bool] = True

    @property
    def configs(self) -> tuple[str, ...]:
        """The configs this source writes: those whose spec names it (builder.configs)."""
        return names(source=self.name)

    @abstractmethod
    def plan(self, opts: BuildOptions) -> list[Shard]:
        """Every shard of this source for a build with ``opts`` (any of its configs where ``shared_shards``: they share
        the plan; else ``opts.config``'s own shards)."""

    @abstractmethod
    def rows(self, opts: BuildOptions, shard: Shard, summary: dict) -> Iterator[dict]:
        """The rows of ``opts.config`` in ``shard``; what was left out is counted into ``summary``."""

    def shard_rows(self, options: tuple[BuildOptions, ...], shard: Shard, summary: dict) -> Iterator[tuple[str, dict]]:
        """``(config, row)`` for every config of ``options`` in ``shard``, each config's rows in their order. A source
        whose configs pair the same programs with different units overrides it to draw and emit each program once."""
        for opts in options:
            for row in self.rows(opts, shard, summary):
                yield opts.config, row

    @abstractmethod
    def checks(self, config: str) -> list[Check]:
        """The row checks ``validate`` runs on one of this source's configs once its columns are all there."""

    def folder_checks(self) -> list[Check]:
        """The whole-folder checks ``validate`` runs when the folder holds one of this source's configs (each is
        handed every complete config and picks its own: regeneration, whole programs run, decontamination)."""
        return []

    def require(self, opts: BuildOptions) -> None:
        """Raise ``ConfigError`` (or a subclass) when this machine cannot build ``opts.config``."""
        return  # most configs build anywhere

    def report(self, summaries: list[dict], config: str) -> None:
        """Print what a build's shards of ``config`` left out (the shards ``config`` has rows in: all of the source's
        where its configs share shards), from their ``summary`` records (resumed shards included)."""
        return  # a source that prints as it goes has nothing to add

    def public_reference(self, row: dict) -> tuple[str, int]:
        """What ``builder.warp_backend.public`` is handed to write this row's unit through Warp's public API (a
        program's source, or ``module:NAME:KERNEL``), and the launch block size it is loaded with."""
        return row["python_source"], row.get("block_dim") or 0

    def note(self, opts: BuildOptions) -> str:
        """What the build's last lines add after a config's split sizes ("" for nothing)."""
        return ""

    def size(self, opts: BuildOptions, split: str, n: int) -> str:
        """How the build's last lines report ``n`` rows of ``split``."""
        return f"{split}={n}"


def count_left_out(summary: dict | None, config: str, counts: Mapping[str, int]) -> None:
    """Add rows of ``config`` a shard left out, by reason, to its ``summary`` (``summary["left_out"][config]``): the
    one record of what a build left out, for every source. The build prints it (``RowSource.report``), the manifest
    keeps it and the card shows it (``rows_left_out``)."""
    counts = {reason: n for reason, n in counts.items() if n}
    if summary is None or not counts:
        return
    mine = summary.setdefault("left_out", {}).setdefault(config, {})
    for reason, n in counts.items():
        mine[reason] = mine.get(reason, 0) + n


def rows_left_out(summaries: list[dict], config: str) -> dict[str, int]:
    """Rows of ``config`` left out over a build's shard summaries, by reason (sorted), as ``count_left_out``
    recorded."""
    total: dict[str, int] = {}
    for summary in summaries:
        for reason, n in summary.get("left_out", {}).get(config, {}).items():
            total[reason] = total.get(reason, 0) + n
    return dict(sorted(total.items()))
