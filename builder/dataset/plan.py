"""The shard plan: which rows each output shard holds.

Boundaries depend only on the split sizes and the sharding options, never on how many processes or Ray workers
run the build, so every engine writes the same files. One shard is one unit of work: it writes rows
``start..stop-1`` of its split for every requested config (each program is sampled once per config and its
compile evidence is shared by the configs through the shard's evidence cache).
"""

from __future__ import annotations

from dataclasses import dataclass

from builder.config import BuildOptions
from builder.schema import SPLITS


@dataclass(frozen=True)
class Shard:
    split: str
    index: int
    count: int  # shards in this split
    start: int
    stop: int

    @property
    def rows(self) -> int:
        return self.stop - self.start

    def filename(self) -> str:
        return f"{self.split}-{self.index:05d}-of-{self.count:05d}.parquet"

    def key(self) -> str:
        return f"{self.split}-{self.index:05d}-of-{self.count:05d}"


def shard_count(rows: int, opts: BuildOptions) -> int:
    if rows == 0:
        return 0
    if opts.num_shards:
        return min(opts.num_shards, rows)
    return -(-rows // opts.rows_per_shard)


def split_shards(opts: BuildOptions, split: str) -> list[Shard]:
    n = opts.size(split)
    k = shard_count(n, opts)
    bounds = [(n * s) // k for s in range(k + 1)] if k else []
    return [Shard(split, s, k, bounds[s], bounds[s + 1]) for s in range(k)]


def plan(opts: BuildOptions) -> list[Shard]:
    """Every shard of every split, train first (the config does not matter: sizes and sharding are shared)."""
    return [s for split in SPLITS for s in split_shards(opts, split)]
