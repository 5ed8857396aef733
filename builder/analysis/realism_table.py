"""The realism table: one column per corpus, one row per metric, as Markdown or a JSON-ready mapping."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from builder.analysis.coverage import GROUPS, group_files, read_sources, warp_package_dir, weighted_coverage
from builder.analysis.features import FEATURES
from builder.analysis.habits import HABITS
from builder.analysis.realism import Corpus

EXAMPLES_AND_LIBRARY = ("examples", "library")


def real_corpora() -> dict[str, Corpus]:
    """The installed Warp package's examples, library and tests, one corpus each (one program per kernel)."""
    root = warp_package_dir()
    return {g: Corpus(g, whole=False).add_all(read_sources(group_files(root, g))) for g in GROUPS}


def real_weights(real: Mapping[str, Corpus]) -> tuple[Counter[str], Counter[str]]:
    """Builtin call counts of (examples + library, all three groups)."""
    exlib: Counter[str] = Counter()
    for g in EXAMPLES_AND_LIBRARY:
        exlib.update(real[g].calls)
    every = exlib.copy()
    every.update(real["tests"].calls)
    return exlib, every


def metrics(corpus: Corpus, exlib: Counter[str], every: Counter[str], shapes: int | None = None) -> dict[str, float]:
    """One column: every metric of ``corpus``; shares are fractions in [0, 1]."""
    lv = corpus.liveness
    out: dict[str, float] = {
        "modules": corpus.modules,
        "kernels (@wp.kernel)": corpus.kinds["kernel"],
        "warp functions (all decorators)": sum(corpus.kinds.values()),
        "programs": len(corpus.programs),
        "assignments": lv.assignments,
        "dead_assignment_share": lv.dead_share,
        "parameters": lv.params,
        "unused_parameter_share": lv.unused_share,
        "ineffective_parameter_share": lv.ineffective_share,
        "median_expression_depth": corpus.median_depth,
        "median_max_expression_depth": corpus.median_max_depth,
        "mean_lines": corpus.mean_lines,
    }
    out.update({f"habit:{h}": corpus.share(h) for h in HABITS})
    out.update({f"feature:{f}": corpus.share(f) for f in FEATURES})
    out["distinct_builtins"] = len(corpus.calls)
    out["coverage_examples_library"] = weighted_coverage(corpus.calls, exlib)
    out["coverage_all"] = weighted_coverage(corpus.calls, every)
    if shapes is not None:
        out["distinct_normalized_shapes"] = shapes
    return out


SHARES = ("_share", "habit:", "feature:", "coverage_")


def _cell(key: str, value: float | None) -> str:
    if value is None:
        return "-"
    if any(s in key for s in SHARES):
        return f"{100 * value:.1f}%"
    if isinstance(value, int):
        return f"{value:,}"
    return f"{value:.1f}"


def markdown(columns: Mapping[str, Mapping[str, float]]) -> str:
    names = list(columns)
    keys = list(dict.fromkeys(k for col in columns.values() for k in col))
    lines = ["| metric | " + " | ".join(names) + " |", "|---|" + "---:|" * len(names)]
    for key in keys:
        cells = [_cell(key, columns[n].get(key)) for n in names]
        lines.append(f"| {key} | " + " | ".join(cells) + " |")
    return "\n".join(lines)
