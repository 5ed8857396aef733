"""The repair config as users get it: built with cpu, loaded with ``datasets``, validated; each diagnostic is the
one Warp's public API raises for the broken kernel (a file imported and ``wp.load_module``), and a row whose
diagnostic Warp does not raise fails ``validate``."""

from __future__ import annotations

import importlib.util
import shutil
import sys

import datasets
import pyarrow.parquet as pq
import pytest

from builder.cli import main
from builder.repair.mutations import KINDS
from builder.validate import validate

SIZES = ["--num-train", "24", "--num-validation", "4", "--num-test", "4", "--rows-per-shard", "16"]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("repair") / "data"
    assert main(["build", "--configs", "repair,cpu", *SIZES, "--out", str(out)]) == 0
    return out


def _rows(folder, split="train"):
    return datasets.load_dataset(str(folder), "repair", split=split)


def test_rows_follow_their_programs_split_and_hold_many_kinds_of_diagnostic(built):
    cpu = {
        r["id"]: r
        for split in ("train", "validation", "test")
        for r in datasets.load_dataset(str(built), "cpu", split=split)
    }
    kinds = set()
    for split in ("train", "validation", "test"):
        for row in _rows(built, split):
            kinds.add(row["mutation"])
            fixed = cpu[row["fixed_id"]]  # the same program, in the same split, with the same evidence
            assert row["split"] == fixed["split"] == split and row["python_source"] == fixed["python_source"]
            assert row["output_checksum"] == fixed["output_checksum"] and row["compiled"] and row["executed"]
            assert row["diff"].startswith("--- a/kernel.py\n+++ b/kernel.py\n")
    assert kinds <= set(KINDS) and len(kinds) >= 6, kinds  # 32 programs; a full build has every kind


def test_each_diagnostic_is_what_warps_public_api_raises_for_the_broken_kernel(built, tmp_path):
    import warp as wp

    from builder.warp_backend import codegen

    codegen.init()  # Warp with this test's private kernel cache
    for n, row in enumerate(_rows(built).select(range(10))):
        path = tmp_path / f"k{n}" / "kernel.py"
        path.parent.mkdir()
        path.write_text(row["broken_source"])
        spec = importlib.util.spec_from_file_location(f"repair_public_{n}", path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        try:
            with pytest.raises(Exception) as raised:  # noqa: PT011 - which one is what the row must say
                spec.loader.exec_module(module)
                wp.load_module(module, device="cpu")
        finally:
            sys.modules.pop(spec.name, None)
        said = str(raised.value).replace(str(path), "kernel.py")
        assert (type(raised.value).__name__, said) == (row["diagnostic_class"], row["diagnostic"]), row["id"]


def test_validate_passes_and_fails_on_a_planted_diagnostic(built, tmp_path):
    report = validate(built, fidelity_sample=0)
    assert report.ok, report.failures
    assert {"repair_regeneration", "repair_agrees_with_cpu"} <= {r.name for r in report.checks if r.status == "pass"}

    planted = tmp_path / "planted"
    shutil.copytree(built, planted)
    shard = sorted((planted / "repair").glob("train-*.parquet"))[0]
    table = pq.read_table(shard)
    rows = table.to_pylist()
    rows[0]["diagnostic"] = rows[0]["diagnostic"].replace("kernel", "kernal", 1)  # a message Warp never wrote
    pq.write_table(type(table).from_pylist(rows, schema=table.schema), shard)
    results = {r.name: r for r in validate(planted, fidelity_sample=0).checks}
    assert results["repair_regeneration"].status == "fail" and results["repair_regeneration"].offenders == [
        rows[0]["id"]
    ]
    assert "diagnostic" in results["repair_regeneration"].message


def test_written_kernels_are_broken_in_train_alone_keep_their_attribution_and_regenerate(probe_data, tmp_path):
    # probe_data's real rows: warp-jsb (a training package, in train) and warp-nn (held out: all in test)
    out = tmp_path / "written"
    assert main(["build", "--configs", "repair-real", "--real-data", probe_data, "--out", str(out)]) == 0
    rows = datasets.load_dataset(str(out), "repair-real", split="train")
    real = {r["id"]: r for r in datasets.load_dataset(probe_data, "real", split="train")}
    assert rows.num_rows > 0 and datasets.get_dataset_split_names(str(out), "repair-real") == ["train"]
    for row in rows:
        fixed = real[row["fixed_id"]]  # a train kernel's cpu row: never one a model is scored on
        assert fixed["split"] == "train" and row["python_source"] == fixed["python_source"]
        assert (row["package"], row["license"], row["copyright"]) == (
            fixed["package"],
            fixed["license"],
            fixed["copyright"],
        )
        assert row["mutation"] in KINDS and row["broken_source"] != row["python_source"]
    report = validate(out, fidelity_sample=0)
    assert report.ok and "repair_regeneration" in {r.name for r in report.checks if r.status == "pass"}, report.failures

    shard = sorted((out / "repair-real").glob("train-*.parquet"))[0]
    table = pq.read_table(shard)
    planted = table.to_pylist()
    planted[-1]["diagnostic_line"] = (planted[-1]["diagnostic_line"] or 0) + 1  # a line Warp did not name
    pq.write_table(type(table).from_pylist(planted, schema=table.schema), shard)
    results = {r.name: r for r in validate(out, fidelity_sample=0).checks}
    assert results["repair_regeneration"].offenders == [planted[-1]["id"]]
