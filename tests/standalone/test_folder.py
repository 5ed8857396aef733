"""A standalone folder built by the CLI: loads with ``datasets``, validates, and a forged input fails."""

from __future__ import annotations

import shutil

import datasets
import pyarrow.parquet as pq
import pytest

from builder.cli import main
from builder.standalone import toolchain
from builder.validate import validate

pytestmark = pytest.mark.skipif(shutil.which("g++") is None or toolchain.nvcc() is None, reason="needs g++ and nvcc")


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    out = tmp_path_factory.mktemp("standalone") / "out"
    argv = ["build", "--configs", "standalone", "--num-train", "2", "--num-validation", "1", "--num-test", "1"]
    assert main([*argv, "--on-invalid", "error", "--out", str(out)]) == 0
    return out


def test_loads_with_datasets_and_validates(folder):
    ds = datasets.load_dataset(str(folder), "standalone", split="train")
    assert ds.num_rows == 2 and isinstance(ds[0]["inputs"], bytes) and ds[0]["cpu_program_match"] is True
    report = validate(folder, fidelity_sample=2)
    assert report.ok, [c.message for c in report.failures]
    names = {c.name for c in report.checks if c.status == "pass"}
    assert {"determinism", "standalone_run", "standalone_programs", "verification", "card"} <= names
    card = (folder / "README.md").read_text()
    assert "## Standalone programs" in card and "make run" in card


def test_forged_inputs_fail_determinism_and_the_run(folder, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(folder, copy)
    (shard,) = sorted((copy / "standalone").glob("train-*.parquet"))[:1]
    t = pq.read_table(shard)
    rows = t.to_pylist()
    rows[0]["inputs"] = bytes(len(rows[0]["inputs"]))  # same length, so the programs still read it all
    pq.write_table(type(t).from_pylist(rows, schema=t.schema), shard)
    report = validate(copy, fidelity_sample=4)
    failed = {c.name for c in report.checks if c.status == "fail"}
    assert "determinism" in failed and "standalone_run" in failed
