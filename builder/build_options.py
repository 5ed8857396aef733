"""Typed build options that validate themselves: the one source for the datasets builder config and the CLI.

Each field's metadata carries its ``--help`` text; ``warp-cuda-ir build`` generates its arguments from these
fields and ``WarpCudaIRConfig`` (warp_cuda_ir.py) is generated from them too, so defaults and parsing agree.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from builder.configs import CONFIGS, spec
from builder.errors import ConfigError
from builder.grammar.policy import CATEGORIES
from builder.shipped.packages import SOURCES as REAL_SOURCES
from builder.shipped.packages import select as select_real_sources

VERIFY_LEVELS = ("none", "compile", "execute")
ON_INVALID = ("error", "skip")
DEFAULT_SIZES = {"num_train": 10_000, "num_validation": 1_000, "num_test": 1_000}
INTERNAL = ("config", "evidence_dir")  # set by the build, not options a user passes
MAX_SEED = 2**63 - 1  # every row stores its seed in an int64 column


def _opt(default, help: str):
    return field(default=default, metadata={"help": help})


@dataclass(frozen=True)
class BuildOptions:
    config: str
    seed: int = _opt(0, "build seed; with split and index it regenerates a row exactly")
    num_train: int = _opt(DEFAULT_SIZES["num_train"], "rows in the train split")
    num_validation: int = _opt(DEFAULT_SIZES["num_validation"], "rows in the validation split")
    num_test: int = _opt(DEFAULT_SIZES["num_test"], "rows in the test split")
    categories: tuple[str, ...] = _opt(CATEGORIES, "comma-separated generation policies, cycled over the rows")
    num_shards: int = _opt(0, "Parquet shards per split (at most one per row); 0 sizes them by --rows-per-shard")
    rows_per_shard: int = _opt(
        250,
        "rows per Parquet shard when --num-shards is 0. A shard is the unit of parallel work: a build uses at "
        "most as many processes (or Ray workers) as it has shards",
    )
    verify: str = _opt("execute", "none | compile | execute: the evidence every row carries")
    # skip: a row that fails its evidence checks (a few per thousand have a constant output the grammar could not
    # rule out) is left out and counted on stderr, so a long build is not lost; error: stop at the first one
    on_invalid: str = _opt("skip", "skip | error: leave out (and count) a row that fails its checks, or stop")
    # the real config (shipped kernels): its one test split is sharded by module, never sized by num_*
    real_sources: tuple[str, ...] = _opt(
        tuple(REAL_SOURCES),
        "real config: comma-separated packages (warp-lang, newton, warp-nn, gswarp, skrl, ...) or parts of them "
        "(examples, library, tests: warp-lang's; newton/tests, ...) to collect kernels from",
    )
    real_modules: int = _opt(
        0,
        "real config: build only the first N shipped modules of --real-sources, in module-name order (0: every "
        "module); a quick sample",
    )
    # the derived and repair-real configs: made from a built real folder's train kernels
    real_data: str = _opt(
        "", "derived and repair-real configs: a built folder holding the real config, whose train kernels they use"
    )
    num_derived: int = _opt(5, "derived config: variants drawn per real train kernel that admits a transformation")
    derived_kernels: int = _opt(
        0,
        "derived and repair-real configs: use only the first N train kernels of --real-data, in stored order (0: all);"
        " a sample",
    )
    evidence_dir: str | None = None  # shared content-addressed evidence cache (one per build or shard task)

    def __post_init__(self) -> None:
        spec(self.config)  # ConfigError naming the valid configs (and where a retired one's rows went)
        for name in ("categories", "real_sources"):  # comma-separated on the command line
            value = getattr(self, name)
            if isinstance(value, str):
                object.__setattr__(self, name, tuple(c for c in value.split(",") if c))
            elif isinstance(value, list):
                object.__setattr__(self, name, tuple(value))
        bad = [c for c in self.categories if c not in CATEGORIES]
        if bad or not self.categories:
            raise ConfigError(f"unknown categories {bad}; valid: {', '.join(CATEGORIES)}")
        if len(set(self.categories)) != len(self.categories):
            raise ConfigError(f"categories repeat: {list(self.categories)}")
        if not _is_int(self.seed) or not 0 <= self.seed <= MAX_SEED:
            raise ConfigError(f"seed must be a non-negative integer at most {MAX_SEED} (2**63 - 1), got {self.seed!r}")
        for name in ("num_train", "num_validation", "num_test"):
            value = getattr(self, name)
            if not _is_int(value) or value < 0:
                raise ConfigError(f"{name} must be a non-negative integer, got {value!r}")
        if spec(self.config).drawn and self.num_train + self.num_validation + self.num_test == 0:
            raise ConfigError("at least one split must have a positive size")
        if not _is_int(self.num_shards) or self.num_shards < 0:
            raise ConfigError(f"num_shards must be a positive integer (or 0: sized by rows), got {self.num_shards!r}")
        if not _is_int(self.rows_per_shard) or self.rows_per_shard < 1:
            raise ConfigError(f"rows_per_shard must be a positive integer, got {self.rows_per_shard!r}")
        if self.verify not in VERIFY_LEVELS:
            raise ConfigError(f"unknown verify level {self.verify!r}; valid: {', '.join(VERIFY_LEVELS)}")
        if self.on_invalid not in ON_INVALID:
            raise ConfigError(f"unknown on_invalid {self.on_invalid!r}; valid: {', '.join(ON_INVALID)}")
        if len(set(self.real_sources)) != len(self.real_sources):
            raise ConfigError(f"real_sources repeat: {list(self.real_sources)}")
        select_real_sources(self.real_sources)  # ConfigError naming what is unknown
        if not _is_int(self.num_derived) or self.num_derived < 1:
            raise ConfigError(f"num_derived must be a positive integer, got {self.num_derived!r}")
        if not _is_int(self.derived_kernels) or self.derived_kernels < 0:
            raise ConfigError(f"derived_kernels must be a non-negative integer (0: all), got {self.derived_kernels!r}")
        if not _is_int(self.real_modules) or self.real_modules < 0:
            raise ConfigError(f"real_modules must be a non-negative integer (0: all), got {self.real_modules!r}")

    @property
    def shipped_sources(self) -> tuple[str, ...]:
        """The source keys (package parts) the shipped config collects."""
        return select_real_sources(self.real_sources)

    def size(self, split: str) -> int:
        return getattr(self, f"num_{split}")

    def public(self) -> dict:
        """The options a user sets (JSON-ready): what the manifest records and a resume must match."""
        return {f.name: _jsonable(getattr(self, f.name)) for f in user_fields()}


@dataclass(frozen=True)
class BuildRequest:
    """One build: the configs it writes and the one set of options they share (a folder holds one build).

    Iterating gives each config's ``BuildOptions`` (each validated for its config: a size that a shipped config
    ignores is still checked for a generated one); ``options`` is the shared set, its ``config`` the first.
    """

    configs: tuple[str, ...]
    options: BuildOptions

    def __post_init__(self) -> None:
        configs = tuple(self.configs.split(",") if isinstance(self.configs, str) else self.configs)
        configs = tuple(c for c in configs if c)
        if not configs:
            raise ConfigError(f"a build needs at least one config; valid: {', '.join(CONFIGS)}")
        if len(set(configs)) != len(configs):
            raise ConfigError(f"configs repeat: {list(configs)}")
        object.__setattr__(self, "configs", configs)
        object.__setattr__(self, "options", dataclasses.replace(self.options, config=configs[0]))
        object.__setattr__(self, "_each", tuple(dataclasses.replace(self.options, config=c) for c in configs))

    @classmethod
    def of(cls, configs, **options) -> BuildRequest:
        """``BuildRequest.of(("cpu", "real"), num_train=4)``: the options are ``BuildOptions`` keywords."""
        first = configs.split(",")[0] if isinstance(configs, str) else next(iter(configs), "")
        return cls(configs, BuildOptions(config=first or CONFIGS[0], **options))

    def __iter__(self):
        return iter(self._each)

    def __len__(self) -> int:
        return len(self.configs)

    def public(self) -> dict:
        """What the manifest records and a resume must match: the configs and the shared user options."""
        return {"configs": list(self.configs), **self.options.public()}


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _jsonable(value):
    return list(value) if isinstance(value, tuple) else value


def user_fields() -> list[dataclasses.Field]:
    """The fields a user sets, in declaration order (the CLI's arguments and the builder config's keywords)."""
    return [f for f in dataclasses.fields(BuildOptions) if f.name not in INTERNAL]


def cli_default(f: dataclasses.Field) -> str | int:
    """A field's default as the CLI shows and parses it (a tuple becomes a comma-separated string)."""
    return ",".join(f.default) if isinstance(f.default, tuple) else f.default
