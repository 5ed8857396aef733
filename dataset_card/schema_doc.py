"""Write ``docs/schema.md``, the row schema, from ``builder.schema``: ``python -m dataset_card.schema_doc``.

A test compares the file with this output, so the document cannot drift from the code.
"""

from __future__ import annotations

from pathlib import Path

from builder.schema import CONFIGS, FEATURES, GPU_FIELDS, SPLITS, TARGETS
from dataset_card.sections import schema_table

DOC = Path(__file__).resolve().parent.parent / "docs" / "schema.md"


def markdown() -> str:
    configs = [
        f"| `{c}` | " + (" / ".join(TARGETS[c][:2]) if c in TARGETS else "cuda / forward + backward") + " |"
        for c in CONFIGS
    ]
    return "\n".join(
        [
            "# Row schema",
            "",
            "Generated from `builder/schema.py` by `python -m dataset_card.schema_doc`; do not edit by hand.",
            "",
            f"Every row of every config has these {len(FEATURES)} columns, in this order. The "
            f"{len(GPU_FIELDS)} `gpu-verified only` columns are null elsewhere.",
            "",
            schema_table(),
            "",
            "## Configs",
            "",
            f"Each config has the splits {', '.join(f'`{s}`' for s in SPLITS)}.",
            "",
            "| config | target / pass |",
            "|---|---|",
            *configs,
            "",
        ]
    )


if __name__ == "__main__":
    DOC.parent.mkdir(exist_ok=True)
    DOC.write_text(markdown())
    print(f"wrote {DOC}")
