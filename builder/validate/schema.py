"""The columns, their order and their types equal ``builder.schema.features(config)`` in every shard."""

from __future__ import annotations

from builder.checks.base import MAX_OFFENDERS, Check, Result
from builder.schema import features


class Schema(Check):
    name = "schema"

    def __init__(self, mismatched: list[str] | None = None):
        self.mismatched = mismatched or []  # shards whose columns or types differ from their config's features

    def run(self, config, tables):
        import datasets

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
        problems += [f"shard {name} does not have exactly these columns and types" for name in self.mismatched]
        if problems:
            message = "; ".join(problems[:4])
            return Result(self.name, config, "fail", message, len(problems), self.mismatched[:MAX_OFFENDERS])
        return Result(
            self.name, config, "pass", f"{len(FEATURES)} columns equal builder.schema.features(config) exactly"
        )


def has_all_columns(config: str, tables) -> bool:
    """Whether the row checks can run: every column of the config is there (types may still be wrong)."""
    return all(c in t.schema.names for t in tables.values() for c in features(config))
