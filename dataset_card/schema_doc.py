"""Write ``docs/schema.md``, the row schema, from ``builder.schema``: ``python -m dataset_card.schema_doc``.

A test compares the file with this output, so the document cannot drift from the code.
"""

from __future__ import annotations

from pathlib import Path

from builder.configs import CONFIGS, spec
from builder.schema import FIELDS, SPLITS, columns
from dataset_card.sections import schema_table

DOC = Path(__file__).resolve().parent.parent / "docs" / "schema.md"


def markdown() -> str:
    configs = [f"| `{c}` | {spec(c).target_pass()} | {len(columns(c))} |" for c in CONFIGS]
    return "\n".join(
        [
            "# Row schema",
            "",
            "Generated from `builder/schema.py` by `python -m dataset_card.schema_doc`; do not edit by hand.",
            "",
            f"The {len(FIELDS)} columns, in the order a row has them. Each config has only the columns listed for "
            "it under `configs` (`builder.schema.features(config)`): a `cpu` row has no PTX, only `gpu-verified` "
            "has the GPU columns, and `real` (shipped kernels, never executed) has no generation coordinates or "
            "execution columns and adds its provenance (`source_path`, `package`, `package_version`, `license`, "
            "`copyright`, `qualified_name`); `standalone` holds whole programs and their inputs instead of "
            "an `ir` (see docs/standalone.md).",
            "",
            schema_table(),
            "",
            "## Configs",
            "",
            f"Every config has the splits {', '.join(f'`{s}`' for s in SPLITS)}; `real` is split by package and "
            "module, near-copies kept in one split (see docs/real.md).",
            "",
            "| config | target / pass | columns |",
            "|---|---|---|",
            *configs,
            "",
        ]
    )


if __name__ == "__main__":
    DOC.parent.mkdir(exist_ok=True)
    DOC.write_text(markdown())
    print(f"wrote {DOC}")
