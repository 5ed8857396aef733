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
from dataclasses import dataclass

import datasets

from builder import GENERATOR_VERSION
from builder.config import DEFAULT_SIZES, BuildOptions
from builder.errors import GPURequired
from builder.grammar.policy import CATEGORIES
from builder.schema import CONFIGS, SPLITS, features

_DESCRIPTIONS = {
    "cuda-forward": "Warp kernel -> CUDA C++ forward kernel emitted by Warp.",
    "cuda-backward": "Warp kernel -> CUDA C++ backward (adjoint) kernel emitted by Warp.",
    "cpu": "Warp kernel -> CPU C++ forward kernel emitted by Warp.",
    "gpu-verified": "cuda-forward and cuda-backward rows, also run on a CUDA GPU and compared with the CPU.",
    "real": "Evaluation set: the kernels shipped with warp-lang (examples, library, tests), every target and pass.",
}


@dataclass
class WarpCudaIRConfig(datasets.BuilderConfig):
    seed: int = 0
    num_train: int = DEFAULT_SIZES["num_train"]
    num_validation: int = DEFAULT_SIZES["num_validation"]
    num_test: int = DEFAULT_SIZES["num_test"]
    categories: tuple[str, ...] = CATEGORIES
    num_shards: int = 8
    verify: str = "execute"
    on_invalid: str = "error"
    evidence_dir: str | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        self.categories = (
            tuple(self.categories.split(",")) if isinstance(self.categories, str) else tuple(self.categories)
        )
        self.options  # noqa: B018 - validates now, so a bad keyword fails at construction

    @property
    def options(self) -> BuildOptions:
        fields = {f.name for f in dataclasses.fields(BuildOptions)} - {"config"}
        return BuildOptions(config=self.name, **{k: getattr(self, k) for k in fields})


class WarpCudaIR(datasets.GeneratorBasedBuilder):
    BUILDER_CONFIG_CLASS = WarpCudaIRConfig
    BUILDER_CONFIGS = [WarpCudaIRConfig(name=n, description=_DESCRIPTIONS[n]) for n in CONFIGS]
    DEFAULT_CONFIG_NAME = "cuda-forward"
    VERSION = datasets.Version(GENERATOR_VERSION)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # datasets copies a predefined config and sets keyword overrides with setattr, which skips
        # __post_init__: validate here so bad keywords fail at construction.
        self.config.options  # noqa: B018

    def _info(self) -> datasets.DatasetInfo:
        return datasets.DatasetInfo(
            description=_DESCRIPTIONS[self.config.name],
            features=features(self.config.name),
            homepage="https://github.com/NVIDIA/warp",
            license="apache-2.0",
        )

    def _split_generators(self, dl_manager):
        opts = self.config.options
        if opts.config == "real":  # the shipped kernels: one test split, its size fixed by warp-lang
            return [datasets.SplitGenerator(name="test", gen_kwargs={"shards": "real"})]
        if opts.config == "gpu-verified":
            from builder.warp_backend import codegen

            if not codegen.cuda_available():
                raise GPURequired()
        out = []
        for split in SPLITS:
            n = opts.size(split)
            if n == 0:
                continue
            k = min(opts.num_shards, n)
            bounds = [(n * s) // k for s in range(k + 1)]
            shards = [(split, bounds[s], bounds[s + 1]) for s in range(k)]
            out.append(datasets.SplitGenerator(name=split, gen_kwargs={"shards": shards}))
        return out

    def _generate_examples(self, shards):
        from builder.dataset.records import rows

        opts = self.config.options
        if shards == "real":
            from builder.real.rows import from_config

            for row in from_config(self.config):
                yield row["id"], row
            return
        for split, start, stop in shards:
            for row in rows(opts, split, start, stop):
                yield row["id"], row
