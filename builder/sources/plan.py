"""The shard plan: which rows each output shard holds.

Boundaries depend only on the split sizes and the sharding options, never on how many processes or Ray workers
run the build, so every engine writes the same files. One shard is one unit of work: it writes rows
``start..stop-1`` of its split for every requested config (each program is sampled once per config and its
compile evidence is shared by the configs through the shard's evidence cache).

The ``real`` config (the kernels shipped with warp-lang and the packages built on it) has its own shards: per
split, the ordered list of the modules holding a kernel of that split (``builder.shipped.splits``: held-out
packages in test, training packages in train, the others split by module, near-copies kept together) cut into
contiguous runs; which modules and kernels there are depends only on the pinned packages and
``real_sources``/``real_modules``, so its plan is as fixed.
"""

from __future__ import annotations

from dataclasses import dataclass

from builder.config import BuildOptions
from builder.configs import spec
from builder.folder_format import shard_name

REAL_MODULES_PER_SHARD = 8  # shipped modules per real shard when --num-shards is 0


@dataclass(frozen=True)
class Shard:
    split: str
    index: int
    count: int  # shards in this split
    start: int
    stop: int
    config: str | None = None  # a shipped config's shard (real, real-train); None: every generated config
    modules: tuple[str, ...] = ()  # real shards: the dotted names of their shipped modules
    source: str = "generated"  # the row source that writes it (builder.sources)

    @property
    def rows(self) -> int:
        """Rows of each config this shard writes (a shipped shard's row count is known only once it is built)."""
        return 0 if self.modules else self.stop - self.start

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


def split_shards(opts: BuildOptions, split: str) -> list[Shard]:
    n = opts.size(split)
    k = shard_count(n, opts)
    bounds = [(n * s) // k for s in range(k + 1)] if k else []
    return [Shard(split, s, k, bounds[s], bounds[s + 1]) for s in range(k)]


def real_shards(opts: BuildOptions) -> list[Shard]:
    """The shards of ``real``: per split (``builder.shipped.splits``), the modules holding a kernel of that split, in
    collection order, in contiguous runs (a shard writes its modules' kernels of its split)."""
    from builder.shipped.modules import modules
    from builder.shipped.packages import require
    from builder.shipped.splits import assign, kernel_defs, module_split

    require(opts.shipped_sources)
    mods = modules(opts.shipped_sources)
    if opts.real_modules:
        mods = mods[: opts.real_modules]
    assigned = assign(tuple(mods))
    out = []
    for split in spec(opts.config).splits:
        # a module whose own split this is may hold kernels the scan did not find (made some other way)
        holders = [
            m
            for m in mods
            if split in {module_split(m)} | {assigned.split_of(m, k.source_path) for k in kernel_defs(m)}
        ]
        n = len(holders)
        k = min(opts.num_shards, n) if opts.num_shards else -(-n // REAL_MODULES_PER_SHARD)
        bounds = [(n * s) // k for s in range(k + 1)] if k else []
        for s in range(k):
            names = tuple(m.name for m in holders[bounds[s] : bounds[s + 1]])
            out.append(Shard(split, s, k, bounds[s], bounds[s + 1], opts.config, names, "shipped"))
    return out
