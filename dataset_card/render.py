"""Render README.md for a built dataset folder from the data itself.

The YAML front matter (configs, data_files, dataset_info) is what the Hub and
``datasets`` read; the body is ``template.md`` filled with statistics computed
from the Parquet shards, plus PNG plots written next to the card.
"""

from __future__ import annotations

import string
from collections import Counter
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import yaml

from builder.grammar.policy import CATEGORIES
from builder.schema import CONFIGS, FIELD_DOCS, SPLITS, TARGETS, columns, features

TEMPLATE = Path(__file__).with_name("template.md")
PLOTS = {"source_lines": "plot_source_lines.png", "ir_lines": "plot_ir_lines.png", "builtins": "plot_builtins.png"}
STAT_COLUMNS = [
    "id",
    "config",
    "split",
    "index",
    "seed",
    "category",
    "source_lines",
    "ir_lines",
    "builtins",
    "verify",
    "compiled",
    "executed",
    "outputs_nondegenerate",
    "gpu_match",
    "warp_version",
    "generator_version",
]
TAGS = ["cuda", "warp", "gpu", "code", "compiler"]
REPO_HINT = "ORG/warp_cuda_ir"


def split_files(folder: Path) -> dict[str, dict[str, list[Path]]]:
    """``{config: {split: [shard paths]}}`` for every config directory holding Parquet shards."""
    out: dict[str, dict[str, list[Path]]] = {}
    for cfg_dir in sorted(p for p in Path(folder).iterdir() if p.is_dir() and not p.name.startswith(".")):
        for split in SPLITS:
            files = sorted(cfg_dir.glob(f"{split}-*.parquet"))
            if files:
                out.setdefault(cfg_dir.name, {})[split] = files
    # configs in schema order (cuda-forward first: it is the default)
    order = {c: i for i, c in enumerate(CONFIGS)}
    return dict(sorted(out.items(), key=lambda kv: (order.get(kv[0], len(order)), kv[0])))


def size_category(n: int) -> str:
    for bound, label in (
        (1_000, "n<1K"),
        (10_000, "1K<n<10K"),
        (100_000, "10K<n<100K"),
        (1_000_000, "100K<n<1M"),
        (10_000_000, "1M<n<10M"),
    ):
        if n < bound:
            return label
    return "10M<n<100M"


def metadata(folder: Path) -> dict:
    files = split_files(folder)
    configs, infos = [], []
    largest = 0
    for cfg, splits in files.items():
        configs.append(
            {"config_name": cfg, "data_files": [{"split": s, "path": f"{cfg}/{s}-*.parquet"} for s in splits]}
        )
        split_infos = [
            {
                "name": s,
                "num_bytes": sum(f.stat().st_size for f in fs),
                "num_examples": sum(pq.ParquetFile(f).metadata.num_rows for f in fs),
            }
            for s, fs in splits.items()
        ]
        largest = max(largest, sum(x["num_examples"] for x in split_infos))
        infos.append(
            {
                "config_name": cfg,
                "features": features(cfg)._to_yaml_list(),
                "splits": split_infos,
                "download_size": sum(x["num_bytes"] for x in split_infos),
                "dataset_size": sum(x["num_bytes"] for x in split_infos),
            }
        )
    if configs:
        configs[0]["default"] = True
    return {
        "license": "apache-2.0",
        "pretty_name": "Warp CUDA IR",
        "language": ["en", "code"],
        "task_categories": ["text-generation"],
        "tags": list(TAGS),
        "size_categories": [size_category(largest)],
        "configs": configs,
        "dataset_info": infos,
    }


def read_config(splits: dict[str, list[Path]], wanted: list[str]) -> pa.Table:
    tables = [
        pq.read_table(f, columns=[c for c in wanted if c in pq.read_schema(f).names])
        for fs in splits.values()
        for f in fs
    ]
    return pa.concat_tables(tables)


# ---------------------------------------------------------------- statistics


def _share(table: pa.Table, column: str) -> float | None:
    if column not in table.column_names:
        return None  # the config has no such column (gpu_match outside gpu-verified)
    col = table.column(column)
    if col.null_count == len(col) or len(col) == 0:
        return None
    return pc.sum(pc.cast(pc.fill_null(col, False), pa.int64())).as_py() / len(col)


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f}%"


def _quantiles(values: list[int]) -> str:
    if not values:
        return "n/a"
    v = sorted(values)

    def q(p: float) -> int:
        return v[min(len(v) - 1, int(p * (len(v) - 1) + 0.5))]

    return f"min {v[0]}, median {q(0.5)}, p90 {q(0.9)}, max {v[-1]}"


def _md_escape(text: str) -> str:
    return text.replace("|", "\\|")


def _most_common(counts: Counter, n: int) -> list[tuple[str, int]]:
    """Counter.most_common with ties broken by name, so the card does not depend on counting order."""
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:n]


def _plots(folder: Path, per_config: dict[str, pa.Table], builtin_counts: Counter) -> dict[str, str]:
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
        fig.savefig(folder / PLOTS[column], dpi=110)
        plt.close(fig)
        written[column] = PLOTS[column]
    top = _most_common(builtin_counts, 40)
    fig, ax = plt.subplots(figsize=(7, max(3.0, 0.18 * len(top) + 1)))
    if top:
        names, counts = zip(*reversed(top))
        ax.barh(names, counts)
    ax.set_title(f"Builtin coverage: {len(builtin_counts)} distinct builtins (top {len(top)} by rows)")
    ax.set_xlabel("rows using the builtin")
    ax.tick_params(axis="y", labelsize=7)
    fig.tight_layout()
    fig.savefig(folder / PLOTS["builtins"], dpi=110)
    plt.close(fig)
    written["builtins"] = PLOTS["builtins"]
    return written


def _example(splits: dict[str, list[Path]], cfg: str) -> str:
    split = "train" if "train" in splits else next(iter(splits))
    table = pq.read_table(splits[split][0], columns=["id", "python_source", "ir", "target", "pass", "entry_point"])
    if table.num_rows == 0:
        return "_(no rows)_\n"
    row = table.slice(0, 1).to_pylist()[0]
    lang = "cuda" if row["target"] == "cuda" else "cpp"
    return (
        f"Row `{row['id']}` ({row['target']} {row['pass']}, entry point `{row['entry_point']}`):\n\n"
        f"```python\n{row['python_source'].rstrip()}\n```\n\n```{lang}\n{row['ir'].rstrip()}\n```\n"
    )


def _regenerate(per_config: dict[str, pa.Table], files: dict, build_options) -> str:
    configs = list(per_config)
    if build_options:
        o = build_options[0]
        seed, sizes, cats, verify = o.seed, [o.num_train, o.num_validation, o.num_test], o.categories, o.verify
        shards = o.num_shards
        configs = [b.config for b in build_options]
    else:
        t = next(iter(per_config.values()))
        seed = pc.min(t.column("seed")).as_py() if t.num_rows else 0
        sizes = []
        for s in SPLITS:
            idx = t.filter(pc.equal(t.column("split"), s)).column("index")
            sizes.append((pc.max(idx).as_py() + 1) if len(idx) else 0)
        by_index = {}
        for s, i, c in zip(*(t.column(k).to_pylist() for k in ("split", "index", "category"))):
            if s == "train":
                by_index.setdefault(i, c)
        distinct = sorted(set(t.column("category").to_pylist()))
        ordered = [by_index[i] for i in range(len(distinct)) if i in by_index]
        cats = tuple(ordered) if len(set(ordered)) == len(distinct) else tuple(distinct)
        if cats == tuple(CATEGORIES[: len(cats)]):
            cats = tuple(CATEGORIES)  # a prefix of the default cycle: the default categories (few rows built)
        verify = (t.column("verify").to_pylist() or ["execute"])[0]
        shards = max((len(fs) for sp in files.values() for fs in sp.values()), default=1)
    cmd = [
        f"warp-cuda-ir build --configs {','.join(configs)} --seed {seed}",
        f"--num-train {sizes[0]} --num-validation {sizes[1]} --num-test {sizes[2]}",
    ]
    if tuple(cats) != tuple(CATEGORIES):
        cmd.append(f"--categories {','.join(cats)}")
    cmd.append(f"--num-shards {shards} --verify {verify} --out warp_cuda_ir")
    return " \\\n    ".join(cmd)


def context(folder: Path, build_options=None, meta: dict | None = None) -> dict[str, str]:
    from builder.warp_backend.execute import TOLERANCES

    folder = Path(folder)
    files = split_files(folder)
    meta = meta or metadata(folder)
    from builder.real.card import section as real_section

    real_files = [f for fs in files.get("real", {}).values() for f in fs]
    # the generated configs' statistics; the real config has its own section
    per_config = {cfg: read_config(splits, STAT_COLUMNS) for cfg, splits in files.items() if cfg != "real"}
    first = next(iter(per_config.values()), None)

    # configs and splits
    rows = ["| config | target / pass | " + " | ".join(SPLITS) + " | total |", "|---|---|" + "---|" * (len(SPLITS) + 1)]
    for info in meta["dataset_info"]:
        counts = {s["name"]: s["num_examples"] for s in info["splits"]}
        cfg = info["config_name"]
        tp = {"gpu-verified": "cuda / forward + backward", "real": "cuda + cpu / forward + backward"}.get(
            cfg, " / ".join(TARGETS.get(cfg, ("?", "?"))[:2])
        )
        rows.append(
            f"| `{cfg}` | {tp} | " + " | ".join(str(counts.get(s, 0)) for s in SPLITS) + f" | {sum(counts.values())} |"
        )
    configs_table = "\n".join(rows)

    examples = "\n".join(f"### `{cfg}`\n\n{_example(splits, cfg)}" for cfg, splits in files.items())
    schema_table = "\n".join(
        ["| column | type | configs | description |", "|---|---|---|---|"]
        + [
            f"| `{k}` | `{_md_escape(_feature_str(features('gpu-verified' if k != 'source_path' else 'real')[k]))}` | "
            f"{_configs_with(k)} | {_md_escape(doc)} |"
            for k, doc in FIELD_DOCS.items()
        ]
    )

    # categories (per config; the programs are the same across configs)
    cat_rows = ["| category | " + " | ".join(f"`{c}`" for c in per_config) + " |", "|---|" + "---|" * len(per_config)]
    cat_counts = {cfg: Counter(t.column("category").to_pylist()) for cfg, t in per_config.items()}
    all_cats = sorted(set().union(*cat_counts.values())) if cat_counts else []
    for c in all_cats:
        cat_rows.append(f"| {c} | " + " | ".join(str(cat_counts[cfg].get(c, 0)) for cfg in per_config) + " |")
    categories_table = "\n".join(cat_rows)

    # lengths and builtins
    len_rows = ["| config | source lines | IR lines |", "|---|---|---|"]
    builtin_counts: Counter = Counter()
    for cfg, t in per_config.items():
        len_rows.append(
            f"| `{cfg}` | {_quantiles(t.column('source_lines').to_pylist())} | "
            f"{_quantiles(t.column('ir_lines').to_pylist())} |"
        )
    if first is not None:
        for b in first.column("builtins").to_pylist():
            builtin_counts.update(sorted(set(b or [])))  # not set order: it changes with PYTHONHASHSEED
    plots = _plots(folder, per_config, builtin_counts) if per_config else {}
    top = ", ".join(f"`{b}` ({n})" for b, n in _most_common(builtin_counts, 15))

    # verification
    ver_rows = [
        "| config | verify | compiled | executed | non-degenerate outputs | GPU match |",
        "|---|---|---|---|---|---|",
    ]
    for cfg, t in per_config.items():
        levels = ",".join(sorted(set(t.column("verify").to_pylist())))
        ver_rows.append(
            f"| `{cfg}` | {levels} | {_pct(_share(t, 'compiled'))} | {_pct(_share(t, 'executed'))} | "
            f"{_pct(_share(t, 'outputs_nondegenerate'))} | {_pct(_share(t, 'gpu_match'))} |"
        )
    tol_rows = ["| dtype | atol | rtol |", "|---|---|---|"] + [
        f"| {k} | {a:g} | {r:g} |" for k, (a, r) in TOLERANCES.items()
    ]

    def versions(col: str) -> str:
        vals = sorted({v for t in per_config.values() for v in t.column(col).to_pylist() if v})
        return ", ".join(vals) or "unknown"

    total = sum(t.num_rows for t in per_config.values()) + sum(pq.ParquetFile(f).metadata.num_rows for f in real_files)
    default_cfg = next(iter(per_config), "real" if real_files else "cuda-forward")
    return {
        "pretty_name": meta["pretty_name"],
        "total_rows": str(total),
        "num_configs": str(len(per_config) + bool(real_files)),
        "default_config": default_cfg,
        "repo_hint": REPO_HINT,
        "examples": examples,
        "schema_table": schema_table,
        "configs_table": configs_table,
        "categories_table": categories_table,
        "lengths_table": "\n".join(len_rows),
        "source_plot": plots.get("source_lines", ""),
        "ir_plot": plots.get("ir_lines", ""),
        "builtins_plot": plots.get("builtins", ""),
        "num_builtins": str(len(builtin_counts)),
        "top_builtins": top or "n/a",
        "verification_table": "\n".join(ver_rows),
        "tolerances_table": "\n".join(tol_rows),
        "regenerate_command": _regenerate(per_config, files, build_options) if per_config else "warp-cuda-ir build",
        "warp_version": versions("warp_version"),
        "generator_version": versions("generator_version"),
        "real_section": real_section(real_files),
    }


def _configs_with(column: str) -> str:
    """The configs that have a column: all, or the ones named."""
    have = [c for c in CONFIGS if column in columns(c)]
    return "all" if len(have) == len(CONFIGS) else ", ".join(have)


def _feature_str(feature) -> str:
    import datasets

    if isinstance(feature, datasets.Value):
        return feature.dtype
    if isinstance(feature, (datasets.Sequence, datasets.List)):
        inner = getattr(feature, "feature", None)
        return f"list<{_feature_str(inner)}>"
    if isinstance(feature, list) and feature:
        return f"list<{_feature_str(feature[0])}>"
    return type(feature).__name__


def render(folder: Path, build_options=None) -> str:
    """Write ``folder/README.md`` (and its plots) and return the card text."""
    folder = Path(folder)
    meta = metadata(folder)
    body = string.Template(TEMPLATE.read_text()).substitute(context(folder, build_options, meta))
    text = "---\n" + yaml.safe_dump(meta, sort_keys=False) + "---\n\n" + body
    (folder / "README.md").write_text(text)
    return text
