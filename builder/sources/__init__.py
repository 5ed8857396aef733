"""Where rows come from: one small protocol (``base.RowSource``), one implementation per source. ``generated`` draws
programs from (seed, split, index) and pairs each with what Warp emits for it (the cuda-*, cpu and gpu-verified
configs); ``standalone`` builds whole C++ and CUDA programs around the same programs' units (the standalone config);
``shipped`` collects the kernels warp-lang and the packages built on it ship (the real config:
train, validation and test, two packages held out); ``derived`` varies real's train kernels (the derived config);
``repair`` breaks drawn programs and keeps Warp's diagnostic (the repair config). Each is a sub-package; ``plan``
(the shard plan) and ``columns`` (what every source derives from a kernel's source and its emitted unit) are shared.
The build driver (``builder.dataset``), the ``datasets`` builder, the validator and the build's report look a
config's source up here and call the protocol (the card reads the same facts from the schema's columns); none of them
branches on a config's name.
"""

from __future__ import annotations

from builder import configs
from builder.build_options import BuildOptions, BuildRequest
from builder.sources.base import RowSource
from builder.sources.derived import DerivedSource
from builder.sources.drawn import GeneratedSource
from builder.sources.plan import Shard
from builder.sources.repair import RepairSource
from builder.sources.shipped import ShippedSource
from builder.sources.standalone import StandaloneSource

SOURCES: tuple[RowSource, ...] = (
    GeneratedSource(),
    StandaloneSource(),
    ShippedSource(),
    DerivedSource(),
    RepairSource(),
)
_BY_NAME = {source.name: source for source in SOURCES}
assert tuple(_BY_NAME) == configs.SOURCES, "one row source per source the registry names"


def source_of(config: str) -> RowSource:
    """The source that writes ``config``'s rows: the one its spec names."""
    return _BY_NAME[configs.spec(config).source]


def source_named(name: str) -> RowSource:
    return _BY_NAME[name]


def grouped(request: BuildRequest) -> list[tuple[RowSource, tuple[BuildOptions, ...]]]:
    """A build's options by source, in ``SOURCES`` order (sources with no config in the build left out)."""
    out = [(s, tuple(o for o in request if source_of(o.config) is s)) for s in SOURCES]
    return [(s, opts) for s, opts in out if opts]


def plan(opts: BuildOptions) -> list[Shard]:
    """Every shard of ``opts.config``'s source (a generated config's are shared by every generated config)."""
    return source_of(opts.config).plan(opts)


def build_plan(request: BuildRequest) -> list[Shard]:
    """The shards of a build of several configs: each source's shards once (each config's, for a source whose
    configs do not share shards), in ``SOURCES`` order."""
    return [shard for source, opts in grouped(request) for o in planned(source, opts) for shard in source.plan(o)]


def planned(source: RowSource, opts: tuple[BuildOptions, ...]) -> tuple[BuildOptions, ...]:
    """The options ``source`` plans (and reports) shards with: the first config's where its configs share shards,
    each config's where they do not."""
    return opts[:1] if source.shared_shards else opts


def shard_options(request: BuildRequest, shard: Shard) -> tuple[BuildOptions, ...]:
    """The options of every config ``shard`` writes: its source's configs in the build, or its own config."""
    opts = next(o for s, o in grouped(request) if s.name == shard.source)
    return tuple(o for o in opts if o.config == shard.config) if shard.config else opts
