"""Typed build options that validate themselves (shared by the builder and the CLI)."""

from __future__ import annotations

from dataclasses import dataclass

from builder.errors import ConfigError
from builder.grammar.policy import CATEGORIES
from builder.schema import CONFIGS

VERIFY_LEVELS = ("none", "compile", "execute")
ON_INVALID = ("error", "skip")
DEFAULT_SIZES = {"num_train": 10_000, "num_validation": 1_000, "num_test": 1_000}


@dataclass(frozen=True)
class BuildOptions:
    config: str
    seed: int = 0
    num_train: int = DEFAULT_SIZES["num_train"]
    num_validation: int = DEFAULT_SIZES["num_validation"]
    num_test: int = DEFAULT_SIZES["num_test"]
    categories: tuple[str, ...] = CATEGORIES
    num_shards: int = 8
    verify: str = "execute"
    on_invalid: str = "error"
    evidence_dir: str | None = None  # shared content-addressed evidence cache (one per build)

    def __post_init__(self) -> None:
        if self.config not in CONFIGS:
            raise ConfigError(f"unknown config {self.config!r}; valid: {', '.join(CONFIGS)}")
        if isinstance(self.categories, str):
            object.__setattr__(self, "categories", tuple(c for c in self.categories.split(",") if c))
        bad = [c for c in self.categories if c not in CATEGORIES]
        if bad or not self.categories:
            raise ConfigError(f"unknown categories {bad}; valid: {', '.join(CATEGORIES)}")
        if len(set(self.categories)) != len(self.categories):
            raise ConfigError(f"categories repeat: {list(self.categories)}")
        if not isinstance(self.seed, int) or self.seed < 0:
            raise ConfigError(f"seed must be a non-negative integer, got {self.seed!r}")
        for name in ("num_train", "num_validation", "num_test"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 0:
                raise ConfigError(f"{name} must be a non-negative integer, got {value!r}")
        if self.num_train + self.num_validation + self.num_test == 0:
            raise ConfigError("at least one split must have a positive size")
        if not isinstance(self.num_shards, int) or self.num_shards < 1:
            raise ConfigError(f"num_shards must be a positive integer, got {self.num_shards!r}")
        if self.verify not in VERIFY_LEVELS:
            raise ConfigError(f"unknown verify level {self.verify!r}; valid: {', '.join(VERIFY_LEVELS)}")
        if self.on_invalid not in ON_INVALID:
            raise ConfigError(f"unknown on_invalid {self.on_invalid!r}; valid: {', '.join(ON_INVALID)}")

    def size(self, split: str) -> int:
        return getattr(self, f"num_{split}")
