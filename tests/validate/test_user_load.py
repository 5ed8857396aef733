"""``datasets_load``: validate loads every config with ``datasets`` the way a user does, and fails naming the file
``datasets`` cannot read even where pyarrow, the card and the manifest see nothing wrong."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from builder.built_folder import BuiltFolder
from builder.checks.base import Context
from builder.checks.user_load import UserLoad, _judge
from builder.folder_format import sha256_file
from builder.validate import validate

SHARD = "cpu/validation-00000-of-00002.parquet"


def _empty_first_row_group(folder: Path, rel: str) -> None:
    """Rewrite a shard with the same rows behind an empty first row group, and record its new sha256 in the
    manifest: pyarrow reads the same rows, but ``datasets`` takes its batch size from the first row group (0)."""
    path = folder / rel
    table = pq.read_table(path)
    with pq.ParquetWriter(path, table.schema) as writer:
        writer.write_table(table.slice(0, 0))
        writer.write_table(table)
    manifest = json.loads((folder / "manifest.json").read_text())
    for entry in manifest["files"]:
        if entry["path"] == rel:
            entry["sha256"] = sha256_file(path)
    (folder / "manifest.json").write_text(json.dumps(manifest))


@pytest.mark.slow
def test_built_folder_loads_every_split_without_touching_the_users_cache(folder):
    result = UserLoad().run(Context({}, BuiltFolder.open(folder)))
    assert result.status == "pass", result.message
    assert result.count == 6 and "20 rows" in result.message  # cuda-forward and cpu, train/validation/test
    # the child had its own cache: the one this process (the user) would use is neither read nor written
    written = [p for var in ("HF_HOME", "HF_DATASETS_CACHE") for p in Path(os.environ[var]).glob("**/*")]
    assert not written, written


@pytest.mark.slow
def test_one_config_asked_for_is_the_only_one_loaded(folder):
    result = UserLoad().run(Context({}, BuiltFolder.open(folder, "cpu")))
    assert result.status == "pass" and result.count == 3, result.message


@pytest.mark.slow
def test_a_shard_only_datasets_refuses_is_the_one_failure(copy):
    """The issue's folder: every other check said OK (pyarrow reads the file; card and manifest agree)."""
    _empty_first_row_group(copy, SHARD)
    assert pq.read_table(copy / SHARD).num_rows == pq.ParquetFile(copy / SHARD).metadata.num_rows == 1
    report = validate(copy, fidelity_sample=0)
    failed = [(c.name, c.message) for c in report.failures]
    assert [name for name, _ in failed] == ["datasets_load"], failed
    result = report.failures[0]
    assert result.offenders == [SHARD] and f"{SHARD}: ArrowInvalid: BatchSize must be greater than 0" in result.message


def test_judge_counts_every_reason():
    expected = {"cpu": {"train": 6, "validation": 2, "test": 2}, "real": {"test": 5}}
    records = [
        {"config": "cpu", "split": "train", "rows": 6},
        {"config": "cpu", "split": "validation", "rows": 1},  # rows differ from the Parquet metadata
        # cpu/test: no record, datasets loads no such split
        {"config": "real", "split": "test", "file": "real/test-00000-of-00001.parquet", "error": "ArrowInvalid: x"},
    ]
    result = _judge(records, expected)
    assert result.status == "fail" and result.count == 3, result.message
    assert result.offenders == ["cpu/validation", "real/test-00000-of-00001.parquet", "cpu/test"]
    assert "cpu/validation: datasets loads 1 rows, the shards' Parquet metadata 2" in result.message


def test_judge_passes_when_every_split_loads_its_rows():
    expected = {"cpu": {"train": 6, "test": 2}}
    records = [{"config": "cpu", "split": "train", "rows": 6}, {"config": "cpu", "split": "test", "rows": 2}]
    result = _judge(records, expected)
    assert result.status == "pass" and result.count == 2 and "8 rows" in result.message
