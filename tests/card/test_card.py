"""The folder's README card round-trips through huggingface_hub and datasets, and names the builder."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

pytestmark = pytest.mark.slow  # every test here reads the session's built folder


def test_card_round_trip(copy):
    from datasets.info import DatasetInfosDict
    from datasets.utils.metadata import MetadataConfigs
    from huggingface_hub import DatasetCard

    from builder.schema import FIELD_DOCS, features
    from dataset_card.render import render

    text = render(copy)
    assert (copy / "README.md").read_text() == text
    card = DatasetCard.load(copy / "README.md")
    meta = card.data.to_dict()
    assert meta["license"] == "apache-2.0" and meta["task_categories"] == ["text-generation"]
    assert set(meta["tags"]) >= {"cuda", "warp", "gpu", "code", "compiler"}
    assert meta["size_categories"] == ["n<1K"]
    configs = MetadataConfigs.from_dataset_card_data(card.data)
    assert list(configs) == ["cuda-forward", "cpu"] and configs["cuda-forward"].get("default")
    train = ["cuda-forward/train-00000-of-00002.parquet", "cuda-forward/train-00001-of-00002.parquet"]
    assert {"split": "train", "path": train} in configs["cuda-forward"]["data_files"]
    infos = DatasetInfosDict.from_dataset_card_data(card.data)
    assert infos["cpu"].features == features("cpu") and infos["cuda-forward"].features == features("cuda-forward")
    assert {s: i.num_examples for s, i in infos["cpu"].splits.items()} == {"train": 6, "validation": 2, "test": 2}
    body = card.text
    for needle in (
        "```python",
        "```cuda",
        "```cpp",
        "warp-cuda-ir build",
        "--num-train 6",
        "@misc{",
        "Apache",
        "Limitations",
        "plot_builtins.png",
        "1e-09",
    ):
        assert needle in body, needle
    assert all(f"`{k}`" in body for k in FIELD_DOCS)
    for png in ("plot_source_lines.png", "plot_ir_lines.png", "plot_builtins.png"):
        assert (copy / png).read_bytes()[:4] == b"\x89PNG"


def test_card_is_the_same_bytes_under_any_hash_seed(folder, tmp_path):
    # set iteration order changes with PYTHONHASHSEED; two renders of one folder must not differ
    import os
    import shutil
    import subprocess
    import sys

    outs = []
    for hash_seed in ("1", "2"):
        dst = tmp_path / f"seed{hash_seed}"
        shutil.copytree(folder, dst)
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        subprocess.run(
            [sys.executable, "-c", f"from dataset_card.render import render; render({str(dst)!r})"],
            check=True,
            env=env,
            cwd=Path(__file__).resolve().parents[2],
        )
        outs.append([(dst / name).read_bytes() for name in ("README.md", "plot_builtins.png")])
    assert outs[0] == outs[1]


def test_card_loads_with_datasets(folder):
    import datasets

    ds = datasets.load_dataset(str(folder), "cpu", split="validation")
    assert len(ds) == 2 and ds.features == __import__("builder.schema").schema.features("cpu")


def test_card_metadata_is_plain_yaml(folder):
    text = (folder / "README.md").read_text()
    front = text.split("---\n")[1]
    assert yaml.safe_load(front)["pretty_name"] == "Warp CUDA IR"


def test_card_names_the_builder_and_its_version(folder):
    from importlib.metadata import version

    from builder import GENERATOR_VERSION

    body = (folder / "README.md").read_text()
    regenerate = body[body.index("## Regenerate exactly") : body.index("## License")]
    assert "warp_cuda_ir builder" in regenerate and f"`warp-cuda-ir` {version('warp-cuda-ir')}" in regenerate
    assert f"kernel generator {GENERATOR_VERSION}" in regenerate and "pip install ." in regenerate


def test_deleted_shard_fails_load_dataset_naming_it(copy):
    import datasets

    (copy / "cpu" / "test-00001-of-00002.parquet").unlink()
    with pytest.raises(FileNotFoundError, match="test-00001-of-00002.parquet"):
        datasets.load_dataset(str(copy), "cpu")


def test_schema_doc_is_generated_from_the_schema():
    from dataset_card.schema_doc import DOC, markdown

    assert DOC.read_text() == markdown(), "docs/schema.md is stale: run python -m dataset_card.schema_doc"


def test_regenerate_command_reproduces_the_shard_layout():
    from dataset_card.sections import _shard_flag

    assert _shard_flag({"train": (10_000, 40), "validation": (1_000, 4), "test": (1_000, 4)}) == ""
    assert _shard_flag({"train": (6, 2), "validation": (2, 2), "test": (2, 2)}) == "--num-shards 2"
    assert _shard_flag({"train": (1_000, 10), "validation": (200, 2)}) == "--rows-per-shard 100"


def test_card_shows_the_liveness_shares(copy):
    import re

    from dataset_card.render import render

    text = render(copy)
    section = text.split("## Live code", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"\| `(cpu|cuda-forward)` \| (\d+) \| 0 / (\d+) \(0\.0%\) \| 0 / (\d+) \(0\.0%\) \|", section)
    assert sorted(r[0] for r in rows) == ["cpu", "cuda-forward"] and all(int(r[2]) > 0 for r in rows), section
