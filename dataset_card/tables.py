"""The card's Markdown tables, each computed from the folder's shards (or its metadata) alone."""

from __future__ import annotations

from collections import Counter

import pyarrow as pa

from builder.built_folder import BuiltFolder
from builder.configs import CONFIGS, spec
from builder.schema import SPLITS
from builder.tolerances import TOLERANCES
from dataset_card.sections import pct, quantiles, share


def configs_table(dataset_info: list[dict]) -> str:
    """Rows per config and split, from the card's ``dataset_info``."""
    rows = ["| config | target / pass | " + " | ".join(SPLITS) + " | total |", "|---|---|" + "---|" * (len(SPLITS) + 1)]
    for info in dataset_info:
        counts = {s["name"]: s["num_examples"] for s in info["splits"]}
        cfg = info["config_name"]
        tp = spec(cfg).target_pass() if cfg in CONFIGS else "? / ?"
        rows.append(
            f"| `{cfg}` | {tp} | " + " | ".join(str(counts.get(s, 0)) for s in SPLITS) + f" | {sum(counts.values())} |"
        )
    return "\n".join(rows)


def left_out_table(dataset_info: list[dict], left_out: dict[str, dict[str, int]] | None) -> str:
    """Rows kept (from ``dataset_info``) and left out by the build, by reason, per config; ``left_out`` is what the
    build counted (``builder.sources.base.count_left_out``), None for a folder whose manifest does not record it."""
    if left_out is None:
        return "Not recorded: this folder was built before the build recorded what it left out (package 4.4.0)."
    rows = ["| config | rows | left out | why |", "|---|---|---|---|"]
    for info in dataset_info:
        cfg = info["config_name"]
        kept = sum(s["num_examples"] for s in info["splits"])
        reasons = left_out.get(cfg, {})
        why = "; ".join(f"{reason}: {n}" for reason, n in sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0])))
        rows.append(f"| `{cfg}` | {kept} | {sum(reasons.values())} | {why or '-'} |")
    return "\n".join(rows)


def categories_table(per_config: dict[str, pa.Table]) -> str:
    """Rows per category and config (the programs are the same across configs)."""
    rows = ["| category | " + " | ".join(f"`{c}`" for c in per_config) + " |", "|---|" + "---|" * len(per_config)]
    counts = {cfg: Counter(t.column("category").to_pylist()) for cfg, t in per_config.items()}
    for c in sorted(set().union(*counts.values())) if counts else []:
        rows.append(f"| {c} | " + " | ".join(str(counts[cfg].get(c, 0)) for cfg in per_config) + " |")
    return "\n".join(rows)


def lengths_table(per_config: dict[str, pa.Table]) -> str:
    rows = ["| config | source lines | IR lines |", "|---|---|---|"]
    for cfg, t in per_config.items():
        rows.append(
            f"| `{cfg}` | {quantiles(t.column('source_lines').to_pylist())} | "
            f"{quantiles(t.column('ir_lines').to_pylist())} |"
        )
    return "\n".join(rows)


def builtin_counts(table: pa.Table | None) -> Counter:
    """In how many rows each Warp builtin is used."""
    counts: Counter = Counter()
    if table is not None:
        for b in table.column("builtins").to_pylist():
            counts.update(sorted(set(b or [])))  # not set order: it changes with PYTHONHASHSEED
    return counts


def verification_table(per_config: dict[str, pa.Table]) -> str:
    rows = [
        "| config | verify | compiled | executed | non-degenerate outputs | GPU match |",
        "|---|---|---|---|---|---|",
    ]
    for cfg, t in per_config.items():
        levels = ",".join(sorted(set(t.column("verify").to_pylist())))
        rows.append(
            f"| `{cfg}` | {levels} | {pct(share(t, 'compiled'))} | {pct(share(t, 'executed'))} | "
            f"{pct(share(t, 'outputs_nondegenerate'))} | {pct(share(t, 'gpu_match'))} |"
        )
    return "\n".join(rows)


def liveness_table(folder: BuiltFolder, configs: list[str]) -> str:
    """Dead assignments and ineffective parameters of each config's distinct programs."""
    rows = ["| config | programs | dead assignments | ineffective parameters |", "|---|---|---|---|"]
    # the generated configs share their programs: each is analysed once, not once per config (it was most of the
    # time the card of a default build took)
    seen: dict[str, Counter] = {}
    return "\n".join(rows + [liveness_row(folder, cfg, seen) for cfg in configs])


def liveness_row(folder: BuiltFolder, cfg: str, seen: dict[str, Counter] | None = None) -> str:
    """The config's dead-assignment and ineffective-parameter shares over its distinct programs; ``seen`` holds the
    counts of programs already analysed, by source."""
    from builder.analysis.liveness import liveness

    seen = {} if seen is None else seen
    sources = sorted(set(folder.read(cfg, ["python_source"]).column("python_source").to_pylist()))
    totals = Counter()
    for source in sources:
        if source not in seen:
            r = liveness(source)
            seen[source] = Counter(
                assignments=r.assignments, dead=r.dead, params=r.params, ineffective=r.unused + len(r.idle_params)
            )
        totals.update(seen[source])
    return (
        f"| `{cfg}` | {len(sources)} | {totals['dead']} / {totals['assignments']} "
        f"({pct(totals['dead'] / totals['assignments'] if totals['assignments'] else None)}) | "
        f"{totals['ineffective']} / {totals['params']} "
        f"({pct(totals['ineffective'] / totals['params'] if totals['params'] else None)}) |"
    )


def tolerances_table() -> str:
    rows = ["| dtype | atol | rtol |", "|---|---|---|"]
    return "\n".join(rows + [f"| {k} | {a:g} | {r:g} |" for k, (a, r) in TOLERANCES.items()])
