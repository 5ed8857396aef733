"""No 0-row Parquet file: a shard that yields no row of a config writes none, and the files left are renamed so
their ``-of-`` count, the card's YAML and manifest.json agree; ``datasets`` loads the result, and ``--resume``
repairs a renumbered folder."""

from __future__ import annotations

import json
from pathlib import Path

import datasets
import pyarrow.parquet as pq
import yaml

from tests.dataset.helpers import run

# seed 55's test program 0 is declared without an adjoint (enable_backward=False), so its shard has no backward row
# (generator 4.5.0; seed 49 at 4.3.0 and 4.4.0, 41 before)
ARGS = ["--configs", "cuda-forward,cuda-backward", "--seed", "55", "--verify", "none", "--num-shards", "3"]
SIZES = ["--num-train", "3", "--num-validation", "3", "--num-test", "3"]


def _files(folder: Path, config: str, split: str) -> list[str]:
    return sorted(p.name for p in (folder / config).glob(f"{split}-*.parquet"))


def test_an_empty_shard_is_dropped_and_the_rest_renumbered(tmp_path):
    out = tmp_path / "ds"
    done = run(tmp_path, *ARGS, *SIZES, "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert _files(out, "cuda-backward", "test") == ["test-00000-of-00002.parquet", "test-00001-of-00002.parquet"]
    assert _files(out, "cuda-forward", "test") == [f"test-0000{i}-of-00003.parquet" for i in range(3)]
    assert all(pq.read_metadata(p).num_rows > 0 for p in out.rglob("*.parquet"))
    doc = json.loads((out / "manifest.json").read_text())
    assert "cuda-backward/test-00000-of-00003.parquet" in doc["empty"]
    renamed = {f["path"]: f["planned"] for f in doc["files"] if "planned" in f and "/test-" in f["path"]}
    assert renamed == {
        "cuda-backward/test-00000-of-00002.parquet": "cuda-backward/test-00001-of-00003.parquet",
        "cuda-backward/test-00001-of-00002.parquet": "cuda-backward/test-00002-of-00003.parquet",
    }
    front = yaml.safe_load((out / "README.md").read_text().split("---")[1])
    listed = {p for c in front["configs"] for d in c["data_files"] for p in d["path"]}
    assert listed == {p.relative_to(out).as_posix() for p in out.rglob("*.parquet")}
    ds = datasets.load_dataset(str(out), "cuda-backward", split="test", cache_dir=str(tmp_path / "cache"))
    assert ds.num_rows == 2 and sorted(ds["index"]) == [1, 2]

    # --resume on the finished folder rebuilds a lost renumbered file under its final name and nothing else
    lost = out / "cuda-backward" / "test-00001-of-00002.parquet"
    before = lost.read_bytes()
    lost.unlink()
    again = run(tmp_path, *ARGS, *SIZES, "--out", str(out), "--resume")
    assert again.returncode == 0, again.stderr
    assert lost.read_bytes() == before
    assert _files(out, "cuda-backward", "test") == ["test-00000-of-00002.parquet", "test-00001-of-00002.parquet"]
    assert json.loads((out / "manifest.json").read_text()) == doc


def test_a_split_without_rows_has_no_file_and_no_yaml_entry(tmp_path):
    out = tmp_path / "ds"
    done = run(tmp_path, *ARGS, "--num-train", "2", "--num-validation", "1", "--num-test", "1", "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert _files(out, "cuda-backward", "test") == []
    loaded = datasets.load_dataset(str(out), "cuda-backward", cache_dir=str(tmp_path / "cache"))
    assert set(loaded) == {"train", "validation"}
