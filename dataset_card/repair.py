"""The dataset card's section on the ``repair`` config, computed from its Parquet shards: the edits and Warp's
diagnostics by kind and count, and one row in full."""

from __future__ import annotations

from collections import Counter

from builder.built_folder import BuiltFolder
from builder.repair.mutations import KINDS

_COLUMNS = ["mutation", "diagnostic_class", "diagnostic_line", "split"]
_EXAMPLE = ["id", "mutation", "broken_source", "diagnostic_class", "diagnostic", "diagnostic_line", "diff", "fixed_id"]

WHAT = {
    False: "the program of a generated row (the same seed, split and index as the `cpu` row named by `fixed_id`)",
    True: "a kernel of the `real` config's train split (the row named by `fixed_id`, whose package, licence and"
    " copyright it keeps)",
}
INTRO = """The `{config}` config holds kernels Warp rejects, each with what Warp said and the kernel that works:
{what} with one seeded edit (`mutation`) that Warp's code generator refuses, Warp's diagnostic for it as a user reads it
(`diagnostic_class`, `diagnostic`; the file is named `kernel.py`), the line it points to (`diagnostic_line`, null
where Warp names none), the working kernel (`python_source`) and the diff from broken to working (`diff`). Every
row carries its working kernel's evidence from the row `fixed_id` names, and `validate` asks Warp again for every
diagnostic. The `repair` task: the prompt is `broken_source` and `diagnostic`, the target a
kernel Warp accepts that computes what `python_source` computes; score a model's kernels with
`warp-cuda-ir evaluate` on the config of the `fixed_id` rows with the lines `{{"id": FIXED_ID, "python": SOURCE}}`."""


def section(folder: BuiltFolder, config: str, written: bool) -> str:
    """Markdown for a repair config, or "" when it has no rows."""
    rows = folder.read(config, _COLUMNS).to_pylist()
    if not rows:
        return ""
    kinds = Counter(r["mutation"] for r in rows)
    lines = [
        "| edit (`mutation`) | rows | share | Warp's exception classes | with a line |",
        "|---|---|---|---|---|",
    ]
    for kind in sorted(kinds, key=lambda k: (-kinds[k], list(KINDS).index(k) if k in KINDS else len(KINDS))):
        mine = [r for r in rows if r["mutation"] == kind]
        classes = Counter(r["diagnostic_class"] for r in mine)
        named = ", ".join(f"`{c}` ({n})" for c, n in sorted(classes.items(), key=lambda x: (-x[1], x[0])))
        with_line = sum(r["diagnostic_line"] is not None for r in mine)
        lines.append(f"| `{kind}` | {len(mine)} | {100 * len(mine) / len(rows):.1f}% | {named} | {with_line} |")
    lines.append(f"| all | {len(rows)} | 100.0% | | {sum(r['diagnostic_line'] is not None for r in rows)} |")
    split = next(iter(folder.files[config]))
    first = folder.first_row(config, split, _EXAMPLE)
    return (
        f"\n## Repair rows\n\n{INTRO.format(config=config, what=WHAT[written])}\n\n"
        f"{len(kinds)} kinds of edit, {len(rows)} rows:\n\n" + "\n".join(lines) + "\n\n"
        f"Row `{first['id']}` (`{first['mutation']}`; its working kernel is row `{first['fixed_id']}`'s): Warp says\n\n"
        f"```\n{first['diagnostic_class']}: {first['diagnostic'].rstrip()}\n```\n\n"
        f"and the repair is\n\n```diff\n{first['diff'].rstrip()}\n```\n"
    )
