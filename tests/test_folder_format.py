"""builder.folder_format: reading a built folder back (shard names, the manifest) and the category cycle of its rows."""

from __future__ import annotations

import json

import pytest

from builder.folder_format import infer_categories, missing_shards, read_manifest, shard_name, split_files
from builder.grammar.policy import CATEGORIES


def test_default_cycle_is_recognised_from_a_prefix():
    # six rows show only the first six categories: the build used the default cycle
    assert infer_categories(list(range(6)), list(CATEGORIES[:6])) == tuple(CATEGORIES)


def test_custom_cycle_is_read_in_index_order():
    cycle = ("struct", "math", "loop")
    indices = [4, 0, 1, 2, 3, 5, 6]
    assert infer_categories(indices, [cycle[i % 3] for i in indices]) == cycle


def test_custom_cycle_is_read_when_early_indices_have_no_row():
    # cuda-backward has no row for a kernel without an adjoint: index 1 is missing, index 4 shows its category
    cycle = ("struct", "math", "loop")
    indices = [0, 2, 3, 4, 5]
    assert infer_categories(indices, [cycle[i % 3] for i in indices]) == cycle


def test_rows_that_fit_no_cycle_give_the_sorted_categories():
    assert infer_categories([0, 1, 2, 3], ["math", "loop", "loop", "math"]) == ("loop", "math")


def test_missing_shards_are_named_from_the_count_in_the_names(tmp_path):
    cfg = tmp_path / "cpu"
    cfg.mkdir()
    for i in (0, 2):
        (cfg / shard_name("train", i, 3)).write_bytes(b"")
    (cfg / shard_name("test", 0, 1)).write_bytes(b"")
    files = split_files(tmp_path)
    assert missing_shards("cpu", "train", files["cpu"]["train"]) == ["cpu/train-00001-of-00003.parquet"]
    assert missing_shards("cpu", "test", files["cpu"]["test"]) == []


def test_split_files_lists_configs_in_schema_order(tmp_path):
    for cfg in ("cpu", "cuda-forward", ".cuda-backward.partial"):
        (tmp_path / cfg).mkdir()
        (tmp_path / cfg / shard_name("train", 0, 1)).write_bytes(b"")
    assert list(split_files(tmp_path)) == ["cuda-forward", "cpu"]


def test_manifest_lists_parquet_shards_not_the_card(tmp_path):
    files = [
        {"path": "README.md", "rows": None, "sha256": "cd"},
        {"path": "cpu/train-00000-of-00001.parquet", "rows": 3, "sha256": "ab"},
    ]
    (tmp_path / "manifest.json").write_text(json.dumps({"files": files}))
    listed = read_manifest(tmp_path)
    assert list(listed) == ["cpu/train-00000-of-00001.parquet"]
    assert (listed["cpu/train-00000-of-00001.parquet"].rows, listed["cpu/train-00000-of-00001.parquet"].sha256) == (
        3,
        "ab",
    )


def test_no_manifest_and_a_broken_one(tmp_path):
    assert read_manifest(tmp_path) is None
    (tmp_path / "manifest.json").write_text("{not json")
    with pytest.raises(ValueError, match="manifest.json .* is not valid JSON"):
        read_manifest(tmp_path)
