"""The shard plan: which rows each output shard holds.

Boundaries depend only on the split sizes and the sharding options, never on how many processes or Ray workers
run the build, so every engine writes the same files. One shard is one unit of work: it writes rows
``start..stop-1`` of its split for every requested config (each program is sampled once per config and its
compile evidence is shared by the configs through the shard's evidence cache).

The ``real`` config plans its own shards (runs of shipped modules: ``builder.sources.shipped.plan``); they are
``Shard``s too, with the source and modules named.
"""

from __future__ import annotations

from dataclasses import dataclass

from builder.build_options import BuildOptions
from builder.folder_format import shard_name


@dataclass(frozen=True)
class Shard:
    split: str
    index: int
    count: int  # shards in this split
    start: int
    stop: int
    config: str | None = None  # the one config the shard writes (real, standalone, ...); None: every generated config
    modules: tuple[str, ...] = ()  # real shards: the dotted names of their shipped modules
    source: str = "generated"  # the row source that writes it (builder.sources)
    # real shards: the bytes of its modules' files, what the time left weighs a shard by (its rows are unknown until
    # built); derived shards: the kernels they vary. Replayed on the log of the 41 min 58 s real build at package
    # 4.7.0, shards finishing in plan order, the time left was within 25% at 53 of 83 lines by bytes, 16 by kernels
    # defined, 9 by shards (docs/real.md)
    weight: int = 0

    @property
    def rows(self) -> int:
        """Rows of each config this shard writes (a shipped or derived shard's count is known only once built)."""
        return 0 if self.modules or self.weight else self.stop - self.start

    def filename(self) -> str:
        return shard_name(self.split, self.index, self.count)

    def key(self) -> str:
        own = f"{self.config}-" if self.config else ""  # real's test shards are not the generated test shards
        return own + self.filename().removesuffix(".parquet")


def shard_count(rows: int, opts: BuildOptions) -> int:
    if rows == 0:
        return 0
    if opts.num_shards:
        return min(opts.num_shards, rows)
    return -(-rows // opts.rows_per_shard)


def split_shards(opts: BuildOptions, split: str, config: str | None = None, source: str = "generated") -> list[Shard]:
    """Rows ``0..N-1`` of ``split`` (N: ``opts``' size) in shards of about ``--rows-per-shard``; ``config``: the one
    config the shards write (None: every config of ``source`` in the build)."""
    n = opts.size(split)
    k = shard_count(n, opts)
    bounds = [(n * s) // k for s in range(k + 1)] if k else []
    return [Shard(split, s, k, bounds[s], bounds[s + 1], config, (), source) for s in range(k)]


def kernel_shards(opts: BuildOptions, n: int, per_shard: int, source: str) -> list[Shard]:
    """The train shards of a config made from ``n`` of real's train kernels (derived, repair-real): ``per_shard``
    kernels each, or ``--num-shards`` of them. Rows are known once built (Warp rejects some variants, accepts every
    edit of a few kernels), so the time left goes by the kernels a shard holds (``weight``)."""
    k = min(opts.num_shards, n) if opts.num_shards else -(-n // per_shard)
    bounds = [(n * s) // k for s in range(k + 1)] if k else []
    return [
        Shard("train", s, k, bounds[s], bounds[s + 1], opts.config, (), source, bounds[s + 1] - bounds[s])
        for s in range(k)
    ]
