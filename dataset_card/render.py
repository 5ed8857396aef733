"""Render README.md for a built dataset folder from the data itself.

The YAML front matter (configs, data_files, dataset_info) is what the Hub and
``datasets`` read; the body is ``template.md`` filled with statistics computed
from the Parquet shards, plus PNG plots written next to the card.
"""

from __future__ import annotations

import os
import string
from pathlib import Path

import yaml

from builder.built_folder import BuiltFolder
from builder.configs import REGISTRY, UNITS, spec
from builder.schema import SPLITS
from dataset_card.metadata import metadata
from dataset_card.plots import most_common, plots
from dataset_card.real import section as real_section
from dataset_card.repair import section as repair_section
from dataset_card.sections import builder_doc, builder_line, example, project_urls, regenerate, schema_table
from dataset_card.standalone import section as standalone_section
from dataset_card.tables import (
    builtin_counts,
    categories_table,
    configs_table,
    left_out_table,
    lengths_table,
    liveness_table,
    tolerances_table,
    verification_table,
)

TEMPLATE = Path(__file__).with_name("template.md")
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
LOCAL_NAME = "warp_cuda_ir"  # the folder the card's regenerate command writes (its --out)


def load_snippet(repo_id: str | None, config: str, split: str) -> str:
    """The card's first code: load from the Hub repo the card is pushed to, or, for a local card, from the folder
    its own regenerate command writes (the card's bytes never depend on where a folder was built)."""
    if repo_id:
        return f'ds = load_dataset("{repo_id}", "{config}", split="{split}")'
    return (
        '# this folder: run from the directory that holds it ("Regenerate exactly" below writes it as\n'
        f"# {LOCAL_NAME}; another copy loads by its path, a pushed one by its Hub repo id)\n"
        f'ds = load_dataset("{LOCAL_NAME}", "{config}", split="{split}")'
    )


def evaluate_command(repo_id: str | None, configs: list[str]) -> str:
    """How to score a model on this data: cpu is scored in full on any machine, the CUDA configs need a GPU to run."""
    if not configs:
        return "# this folder holds no config the evaluator scores: build cpu, cuda-forward, cuda-backward or real"
    # a config of CPU rows is scored in full on any machine
    config = next((c for c in configs if {UNITS[u].target for u in spec(c).units} == {"cpu"}), configs[0])
    split = "test"
    return (
        f"warp-cuda-ir evaluate --data {repo_id or LOCAL_NAME} --config {config} --split {split} "
        "--predictions pred.jsonl --out eval_report.json"
    )


def context(
    folder: BuiltFolder, request=None, meta: dict | None = None, repo_id: str | None = None, out: Path | None = None
) -> dict[str, str]:
    """``out``: where the plots are written (the folder itself unless the card is rendered aside)."""
    files = folder.files
    meta = meta or metadata(folder)
    # a source that does not regenerate its rows (the shipped kernels) has its own section and no statistics
    shipped = [cfg for cfg in files if not _regenerates(cfg)]
    # the ``wanted`` columns each config has (a cpu shard has no PTX, only gpu-verified has gpu_match)
    stats = {cfg: folder.read(cfg, STAT_COLUMNS) for cfg in files if cfg not in shipped}
    # rows that hold whole programs, not an ir (standalone), have their own section too
    per_config = {cfg: t for cfg, t in stats.items() if _has_ir(cfg)}
    first = next(iter(per_config.values()), None)

    examples = "\n".join(f"### `{cfg}`\n\n{example(folder, cfg)}" for cfg in files if _has_ir(cfg))
    builtins = builtin_counts(first)
    written = plots(Path(out or folder.path), per_config, builtins) if per_config else {}
    top = ", ".join(f"`{b}` ({n})" for b, n in most_common(builtins, 15))
    shipped_versions = {cfg: folder.read(cfg, ["warp_version", "generator_version"]) for cfg in shipped}
    tables = [*per_config.values(), *shipped_versions.values()]

    def versions(col: str) -> str:
        vals = sorted({v for t in tables for v in t.column(col).to_pylist() if v})
        return ", ".join(vals) or "unknown"

    total = sum(t.num_rows for t in stats.values()) + sum(t.num_rows for t in shipped_versions.values())
    default_cfg = next(iter(per_config), shipped[0] if shipped else next(iter(stats), "cuda-forward"))
    # the first split the default config has (a real sample of held-out packages has test alone)
    default_split = next((s for s in SPLITS if s in files.get(default_cfg, {s: 1 for s in SPLITS})), "train")
    urls = project_urls()
    return {
        "pretty_name": meta["pretty_name"],
        "total_rows": str(total),
        "num_configs": str(len(stats) + len(shipped)),
        "load_snippet": load_snippet(repo_id, default_cfg, default_split),
        "evaluate_command": evaluate_command(repo_id, [*per_config, *shipped]),
        "examples": examples,
        "schema_table": schema_table(),
        "configs_table": configs_table(meta["dataset_info"]),
        "categories_table": categories_table(per_config),
        "lengths_table": lengths_table(per_config),
        "source_plot": written.get("source_lines", ""),
        "ir_plot": written.get("ir_lines", ""),
        "builtins_plot": written.get("builtins", ""),
        "num_builtins": str(len(builtins)),
        "top_builtins": top or "n/a",
        "verification_table": verification_table(per_config),
        # a standalone row's program is the program of its generated configs' rows
        "liveness_table": liveness_table(folder, list(per_config)),
        "tolerances_table": tolerances_table(),
        "regenerate_command": regenerate(stats, folder, request),
        "warp_version": versions("warp_version"),
        "generator_version": versions("generator_version"),
        "builder": builder_line(urls),
        "gpu_doc": builder_doc(urls, "docs/gpu-verification.md"),
        "evaluation_doc": builder_doc(urls, "docs/evaluation.md"),
        "real_section": "\n".join(real_section(folder, c) for c in shipped if c in REGISTRY and spec(c).shipped),
        # rows that hold whole programs (the standalone config) are found by their spec, not their name
        "standalone_section": "".join(
            standalone_section(folder, c, _source(repo_id)) for c in files if c in REGISTRY and spec(c).programs
        ),
        # "" without a repair config: the cards of other folders stay as they were
        "repair_section": "".join(
            repair_section(folder, c, spec(c).written) for c in files if c in REGISTRY and spec(c).repair
        ),
    }


def _regenerates(config: str) -> bool:
    """Whether the config's rows are drawn from a seed: they carry it (a folder's unknown directory is taken for
    generated). The shipped kernels' rows carry none."""
    return config not in REGISTRY or spec(config).seeded


def _has_ir(config: str) -> bool:
    return config not in REGISTRY or spec(config).ir


def _source(repo_id: str | None) -> str:
    return f'"{repo_id}"' if repo_id else f'"{LOCAL_NAME}"'


def render(
    folder: BuiltFolder | Path,
    request=None,
    left_out: dict | None = None,
    *,
    repo_id: str | None = None,
    out: Path | None = None,
) -> str:
    """Write the card of ``folder`` (README.md and its plots) into ``out`` (default: the folder) and return its
    text. ``repo_id``: the Hub repo the card is pushed to, which its load snippet names; ``request``: the
    ``BuildRequest`` that wrote the folder, when known (its command is then the card's regeneration command);
    ``left_out``: the rows each config's shards left out, by reason (the build hands them in; else they are read
    from the folder's ``manifest.json``).

    Each file is written beside its final name and moved into place, so an interrupted render leaves the
    previous card, never half of one.
    """
    if not isinstance(folder, BuiltFolder):
        folder = BuiltFolder.open(folder)
    out = Path(out or folder.path)
    meta = metadata(folder)
    values = context(folder, request, meta, repo_id, out)
    # the rows left out per config and reason: the build hands them in, else the folder's manifest records them
    left_out = folder.manifest_doc.get("left_out") if left_out is None else left_out
    values["left_out_table"] = left_out_table(meta["dataset_info"], left_out)
    body = string.Template(TEMPLATE.read_text()).substitute(values)
    text = "---\n" + yaml.safe_dump(meta, sort_keys=False) + "---\n\n" + body
    tmp = out / ".README.md.tmp"
    tmp.write_text(text)
    os.replace(tmp, out / "README.md")
    return text
