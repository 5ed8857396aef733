"""The folder's config directories are configs (``ConfigName``), and their columns, column order and types equal
``builder.schema.features(config)`` in every shard (``Schema``). A config whose columns are not all there
(``complete``) gets no other check."""

from __future__ import annotations

from builder.checks.base import MAX_OFFENDERS, Check, ConfigCheck, Context, Result
from builder.configs import CONFIGS
from builder.schema import features


class ConfigName(ConfigCheck):
    """A directory of shards that is not a config fails by name (its rows are checked no further)."""

    name = "config_name"

    def applies(self, context: Context) -> bool:
        return context.config not in CONFIGS

    def check(self, config, tables):
        return Result(self.name, config, "fail", f"unknown config directory {config!r}")


class Schema(Check):
    """Run on each config of the folder (``validate`` narrows the context to it)."""

    name = "schema"

    def applies(self, context: Context) -> bool:
        return context.config in CONFIGS

    def run(self, context: Context) -> Result:
        import datasets

        config, tables = context.config, context.tables[context.config]
        # shards whose columns or types differ from their config's features, as the folder read them
        mismatched = context.folder.mismatched.get(config, []) if context.folder else []

        FEATURES = features(config)  # noqa: N806 - each config has its own columns
        problems = []
        for split, t in tables.items():
            names = t.schema.names
            extra = [n for n in names if n not in FEATURES]
            missing = [n for n in FEATURES if n not in names]
            if extra or missing:
                problems.append(f"{split}: extra columns {extra}, missing {missing}")
                continue
            if names != list(FEATURES):
                problems.append(f"{split}: column order differs from the schema")
            for f in FEATURES.arrow_schema:
                got = t.schema.field(f.name).type
                if not got.equals(f.type):
                    problems.append(f"{split}: {f.name} is {got}, expected {f.type}")
            try:
                if datasets.Features.from_arrow_schema(t.schema) != FEATURES and not problems:
                    problems.append(f"{split}: features differ from builder.schema.features(config)")
            except Exception as exc:  # noqa: BLE001 - an unreadable schema is the finding
                problems.append(f"{split}: unreadable features ({exc})")
        problems += [f"shard {name} does not have exactly these columns and types" for name in mismatched]
        if problems:
            message = "; ".join(problems[:4])
            return Result(self.name, config, "fail", message, len(problems), mismatched[:MAX_OFFENDERS])
        return Result(
            self.name, config, "pass", f"{len(FEATURES)} columns equal builder.schema.features(config) exactly"
        )


def complete(config: str, tables) -> bool:
    """Whether the other checks can run: a config, with every one of its columns there (types may still be wrong)."""
    return config in CONFIGS and all(c in t.schema.names for t in tables.values() for c in features(config))
