"""The card's PNG plots: line-count histograms and builtin coverage, written beside the card."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import pyarrow as pa

PLOTS = {"source_lines": "plot_source_lines.png", "ir_lines": "plot_ir_lines.png", "builtins": "plot_builtins.png"}


def most_common(counts: Counter, n: int) -> list[tuple[str, int]]:
    """Counter.most_common with ties broken by name, so the card does not depend on counting order."""
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:n]


def plots(folder: Path, per_config: dict[str, pa.Table], builtin_counts: Counter) -> dict[str, str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written = {}
    for column, title in (("source_lines", "Python source lines (non-empty)"), ("ir_lines", "Emitted IR lines")):
        fig, ax = plt.subplots(figsize=(7, 3.5))
        for cfg, t in per_config.items():
            vals = t.column(column).to_pylist()
            if column == "source_lines" and cfg != next(iter(per_config)):
                continue  # the Python source is the same program in every config
            ax.hist(vals, bins=min(40, max(5, len(vals) // 4)), alpha=0.55, label=cfg)
        ax.set_title(title)
        ax.set_xlabel("lines")
        ax.set_ylabel("rows")
        ax.legend(fontsize=8)
        fig.tight_layout()
        _save(fig, folder / PLOTS[column])
        plt.close(fig)
        written[column] = PLOTS[column]
    top = most_common(builtin_counts, 40)
    fig, ax = plt.subplots(figsize=(7, max(3.0, 0.18 * len(top) + 1)))
    if top:
        names, counts = zip(*reversed(top))
        ax.barh(names, counts)
    ax.set_title(f"Builtin coverage: {len(builtin_counts)} distinct builtins (top {len(top)} by rows)")
    ax.set_xlabel("rows using the builtin")
    ax.tick_params(axis="y", labelsize=7)
    fig.tight_layout()
    _save(fig, folder / PLOTS["builtins"])
    plt.close(fig)
    written["builtins"] = PLOTS["builtins"]
    return written


def _save(fig, path: Path) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    fig.savefig(tmp, dpi=110, format="png")
    os.replace(tmp, path)
