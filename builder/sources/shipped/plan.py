"""The shards of the ``real`` config: per split, the ordered list of the modules holding a kernel of that split
(``builder.shipped.splits``: held-out packages in test, the others split by module, near-copies kept together) cut
into contiguous runs. Which modules and kernels there are depends only on the pinned packages and
``real_sources``/``real_modules``, so the plan is as fixed as a generated config's.

Planning is the shipped source's one check of the installed packages (``require``): every way of building rows
(the command on any engine, ``build_folder``, the ``datasets`` builder) plans before it writes a row, and a row
from another version of a package would not be the dataset's row.
"""

from __future__ import annotations

from builder.build_options import BuildOptions
from builder.configs import spec
from builder.sources.plan import Shard

REAL_MODULES_PER_SHARD = 8  # shipped modules per real shard when --num-shards is 0


def real_shards(opts: BuildOptions) -> list[Shard]:
    """The shards of ``real``: per split (``builder.shipped.splits``), the modules holding a kernel of that split, in
    collection order, in contiguous runs (a shard writes its modules' kernels of its split)."""
    from builder.shipped.modules import modules  # the pinned packages' files: only when a build plans them
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
            run = holders[bounds[s] : bounds[s + 1]]
            weight = sum(m.file().stat().st_size for m in run)
            out.append(
                Shard(split, s, k, bounds[s], bounds[s + 1], opts.config, tuple(m.name for m in run), "shipped", weight)
            )
    return out
