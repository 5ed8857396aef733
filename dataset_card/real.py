"""The dataset card's section on the ``real`` config, computed from its Parquet shards."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq

from builder.shipped.modules import SOURCES

_COLUMNS = ["id", "category", "target", "pass", "compiled", "warp_version"]
_FEATURES = (("cuda", "forward"), ("cuda", "backward"), ("cpu", "forward"))

INTRO = """The `real` config is an evaluation set, not training data: the kernels NVIDIA ships inside the warp-lang
wheel (its examples, its library code under `warp/_src`, and its unit tests), put through the same pipeline as
the generated rows. Use it to measure how a model trained on the generated configs does on code people wrote.
Each kernel was found by importing its module (never running it; modules that need packages this build does not
install are skipped), cut out of its file with the `@wp.func`s, `@wp.struct`s, constants and imports it reads,
emitted alone for every target and pass Warp supports for it (kernels with `enable_backward=False` have no
backward row; a generic kernel has a row per declared overload), and compiled (NVRTC `sm_90` / Warp's CPU
compiler). Real rows are not executed (their inputs are unknown), so the execution columns are absent;
`source_path` names the file and line in the wheel. Its one split is `test`."""


def section(files: list[Path]) -> str:
    """Markdown for the real config (counts by source and by target/pass), or "" when the folder has none."""
    if not files:
        return ""
    rows = [r for f in files for r in pq.read_table(f, columns=_COLUMNS).to_pylist()]
    counts = Counter((r["category"], r["target"], r["pass"]) for r in rows)
    kernels = Counter((r["category"]) for r in {r["id"].rsplit("/", 1)[0]: r for r in rows}.values())
    head = "| source | kernels | " + " | ".join(f"{t} {p}" for t, p in _FEATURES) + " | rows |"
    table = [head, "|---|---|" + "---|" * (len(_FEATURES) + 1)]
    for source in [*SOURCES, "total"]:
        if source == "total":
            n = [sum(counts[(s, t, p)] for s in SOURCES) for t, p in _FEATURES]
            k = sum(kernels.values())
        else:
            n = [counts[(source, t, p)] for t, p in _FEATURES]
            k = kernels[source]
        table.append(f"| {source} | {k} | " + " | ".join(str(x) for x in n) + f" | {sum(n)} |")
    compiled = sum(1 for r in rows if r["compiled"])
    versions = ", ".join(sorted({r["warp_version"] for r in rows})) or "unknown"
    return (
        "## The `real` config\n\n"
        + INTRO
        + "\n\n"
        + "\n".join(table)
        + f"\n\n{compiled} of {len(rows)} rows carry compile evidence. The kernels are taken from warp-lang "
        f"{versions}, which NVIDIA licenses under Apache-2.0; its license and copyright notices apply to their "
        "Python sources and to the code emitted from them.\n"
    )
