"""warp_cuda_ir: NVIDIA Warp Python kernels paired with the CUDA/CPU code Warp emits for them.

A ``datasets.GeneratorBasedBuilder``. It declares the features, configs and
splits; the work is done by the ``builder`` package. Use it directly::

    from warp_cuda_ir import WarpCudaIR
    b = WarpCudaIR(config_name="cuda-forward", seed=0, num_train=100, num_validation=10, num_test=10)
    b.download_and_prepare(num_proc=2)
    ds = b.as_dataset()

or build the publishable Parquet folder with ``warp-cuda-ir build``.
"""

from __future__ import annotations

import dataclasses
import os
import tempfile
from collections.abc import Iterator

import datasets

from builder import GENERATOR_VERSION
from builder.build_options import BuildOptions, user_fields
from builder.configs import CONFIGS, DEFAULT_CONFIGS, spec
from builder.schema import features
from builder.sources import source_named, source_of


def _post_init(self) -> None:
    datasets.BuilderConfig.__post_init__(self)
    opts = self.options  # validated and normalized the one way BuildOptions does it
    self.categories, self.real_sources = opts.categories, opts.real_sources


def _options(self) -> BuildOptions:
    return BuildOptions(config=self.name, **{f.name: getattr(self, f.name) for f in user_fields()})


# The config's keywords are BuildOptions' fields (same names, defaults and validation): one source for both.
WarpCudaIRConfig = dataclasses.make_dataclass(
    "WarpCudaIRConfig",
    [(f.name, f.type, dataclasses.field(default=f.default)) for f in user_fields()],
    bases=(datasets.BuilderConfig,),
    namespace={"__post_init__": _post_init, "options": property(_options), "__module__": __name__},
)


def shard_rows(opts: BuildOptions, shard) -> Iterator[dict]:
    """One shard's rows, as ``builder.dataset.shards`` writes them for the CLI build."""
    source, summary = source_named(shard.source), {}
    yield from source.rows(opts, shard, summary)
    source.report([summary], opts.config)


class WarpCudaIR(datasets.GeneratorBasedBuilder):
    BUILDER_CONFIG_CLASS = WarpCudaIRConfig
    BUILDER_CONFIGS = [WarpCudaIRConfig(name=n, description=spec(n).description) for n in CONFIGS]
    DEFAULT_CONFIG_NAME = DEFAULT_CONFIGS[0]
    VERSION = datasets.Version(GENERATOR_VERSION)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # datasets copies a predefined config and sets keyword overrides with setattr, which skips
        # __post_init__: validate here so bad keywords fail at construction.
        self.config.options  # noqa: B018

    def _info(self) -> datasets.DatasetInfo:
        return datasets.DatasetInfo(
            description=spec(self.config.name).description,
            features=features(self.config.name),
            homepage="https://github.com/NVIDIA/warp",
            license="apache-2.0",
        )

    def _split_generators(self, dl_manager):
        opts = self.config.options
        source = source_of(opts.config)
        source.require(opts)
        by_split: dict[str, list] = {}
        for shard in source.plan(opts):  # the CLI build's shard plan
            by_split.setdefault(shard.split, []).append(shard)
        return [datasets.SplitGenerator(name=s, gen_kwargs={"shards": shards}) for s, shards in by_split.items()]

    def _download_and_prepare(self, dl_manager, verification_mode, **prepare_splits_kwargs):
        # with num_proc > 1, datasets terminates its pool's workers, so their exit handlers never remove what Warp
        # and the evidence checks put in the temporary directory: the workers write under this folder instead
        with tempfile.TemporaryDirectory(prefix="warp_cuda_ir_workers_") as scratch:
            self._workers_tmp = (os.getpid(), scratch)
            try:
                super()._download_and_prepare(dl_manager, verification_mode, **prepare_splits_kwargs)
            finally:
                self._workers_tmp = None

    def _use_workers_tmp(self) -> None:
        """In a pool worker (not the process that owns the folder), keep temporary files in the builder's folder."""
        owner, scratch = getattr(self, "_workers_tmp", None) or (os.getpid(), None)
        if owner == os.getpid() or scratch is None:
            return
        own = os.path.join(scratch, str(os.getpid()))
        if tempfile.tempdir != own:
            os.makedirs(own, exist_ok=True)
            os.environ["TMPDIR"] = tempfile.tempdir = own  # Warp's caches, the compilers and the evidence checks

    def _generate_examples(self, shards):
        self._use_workers_tmp()
        opts = self.config.options
        with tempfile.TemporaryDirectory(prefix="warp_cuda_ir_evidence_") as own:
            # without a shared cache each generator keeps its own, removed when it finishes
            opts = opts if opts.evidence_dir else dataclasses.replace(opts, evidence_dir=own)
            for shard in shards:
                for row in shard_rows(opts, shard):
                    yield row["id"], row
