"""The card's YAML front matter: what the Hub and ``datasets`` read (configs, data files, split sizes, features)."""

from __future__ import annotations

import pyarrow.parquet as pq

from builder.built_folder import BuiltFolder
from builder.schema import features

TAGS = ["cuda", "warp", "gpu", "code", "compiler"]


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


def metadata(folder: BuiltFolder) -> dict:
    files = folder.files
    configs, infos = [], []
    largest = 0
    for cfg, splits in files.items():
        configs.append(
            # every shard by name, not a glob: a deleted shard is then an error naming it, not a count mismatch
            {
                "config_name": cfg,
                "data_files": [{"split": s, "path": [f"{cfg}/{f.name}" for f in fs]} for s, fs in splits.items()],
            }
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
                "features": features(cfg)._to_yaml_list(),  # each config has its own columns
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
