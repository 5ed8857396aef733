"""Render README.md for a built dataset folder: YAML metadata (configs, data_files, dataset_info)."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import yaml

from builder.schema import FEATURES, SPLITS


def split_files(folder: Path) -> dict[str, dict[str, list[Path]]]:
    out: dict[str, dict[str, list[Path]]] = {}
    for cfg_dir in sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith(".")):
        for split in SPLITS:
            files = sorted(cfg_dir.glob(f"{split}-*.parquet"))
            if files:
                out.setdefault(cfg_dir.name, {})[split] = files
    return out


def metadata(folder: Path) -> dict:
    files = split_files(folder)
    configs, infos = [], []
    for cfg, splits in files.items():
        configs.append({"config_name": cfg, "data_files": [
            {"split": s, "path": f"{cfg}/{s}-*.parquet"} for s in splits]})
        info = FEATURES._to_yaml_list()
        infos.append({"config_name": cfg, "features": info, "splits": [
            {"name": s, "num_examples": sum(pq.ParquetFile(f).metadata.num_rows for f in fs),
             "num_bytes": sum(f.stat().st_size for f in fs)} for s, fs in splits.items()]})
    if configs:
        configs[0]["default"] = True
    return {"license": "apache-2.0", "pretty_name": "Warp CUDA IR", "configs": configs, "dataset_info": infos}


def render(folder: Path, build_options=None) -> str:
    text = "---\n" + yaml.safe_dump(metadata(folder), sort_keys=False) + "---\n\n# warp_cuda_ir\n"
    (folder / "README.md").write_text(text)
    return text
