"""The derived config as a user gets it: built from a real folder, loaded with datasets, validated (its rows
regenerate, Warp's public pipeline writes them, none comes near real's test kernels), and a planted copy of a real
test kernel fails validation naming the pair."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from builder.cli import main

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    root = tmp_path_factory.mktemp("derived")
    real = root / "real"
    # warp-jsb: 7 train kernels; warp-nn: held out, its kernels all in test (what no variant may come near)
    argv = ["build", "--configs", "real", "--real-sources", "warp-jsb,warp-nn", "--verify", "none", "--out", str(real)]
    assert main(argv) == 0
    out = root / "derived"
    argv = ["build", "--configs", "derived", "--real-data", str(real), "--out", str(out)]  # --verify execute
    assert main(argv) == 0
    return real, out


def test_it_loads_with_datasets_and_names_its_sources(folders):
    import datasets

    real, out = folders
    ds = datasets.load_dataset(str(out), "derived", split="train")
    assert len(ds) > 0 and set(ds.unique("split")) == {"train"} and ds[0]["compiled"]
    train = datasets.load_dataset(str(real), "real", split="train")
    sources = {i.rsplit("/", 1)[0] for i in train["id"]}
    assert set(ds["derived_from"]) <= sources and set(ds["package"]) == {"warp-jsb"}
    assert all(t for t in ds["transforms"]) and {u for u in ds["target"]} == {"cuda", "cpu"}
    doc = json.loads((out / "manifest.json").read_text())
    assert doc["options"]["real_data"] == str(real) and doc["options"]["num_derived"] == 5
    card = (out / "README.md").read_text()
    assert f"--configs derived --seed 0 \\\n    --real-data {real}" in card  # the command that builds it again


def test_variants_run_where_their_inputs_can_be_built_and_say_the_level_they_reached(folders):
    _, out = folders
    rows = pa.concat_tables(pq.read_table(f) for f in (out / "derived").glob("train-*.parquet")).to_pylist()
    ran = [r for r in rows if r["verify"] == "execute"]
    assert ran, "no variant of warp-jsb's kernels ran"
    assert all(r["executed"] and r["outputs_finite"] and r["outputs_nondegenerate"] and r["grads_finite"] for r in ran)
    assert {r["verify"] for r in rows} <= {"compile", "execute"} and all(r["compiled"] for r in rows)
    by_variant: dict[str, set] = {}
    for r in rows:  # a variant runs once: its units carry the same evidence
        by_variant.setdefault(r["id"].rsplit("/", 1)[0], set()).add((r["verify"], r["executed"]))
    assert all(len(v) == 1 for v in by_variant.values())


def test_validate_passes_and_fails_on_a_planted_copy_of_a_real_test_kernel(folders, tmp_path):
    import shutil

    from builder.validate import validate

    real, out = folders
    report = validate(out, fidelity_sample=3)
    by_name = {r.name: r for r in report.checks}
    assert by_name["derived_regeneration"].status == "pass", by_name["derived_regeneration"].message
    assert by_name["derived_decontamination"].status == "pass", by_name["derived_decontamination"].message
    assert by_name["fidelity"].status == "pass", by_name["fidelity"].message
    assert report.ok, [r for r in report.checks if r.status == "fail"]

    planted = tmp_path / "planted"
    shutil.copytree(out, planted)
    shard = next((planted / "derived").glob("train-*.parquet"))
    table = pq.read_table(shard)
    test = pq.read_table(next((real / "real").glob("test-*.parquet")))
    copy = test.column("python_source")[0].as_py()
    rows = table.to_pylist()
    rows[0]["python_source"] = copy
    pq.write_table(pa.Table.from_pylist(rows, schema=table.schema), shard)
    result = {r.name: r for r in validate(planted, fidelity_sample=0).checks}["derived_decontamination"]
    assert result.status == "fail" and rows[0]["id"] in result.message
    assert test.column("id")[0].as_py() in result.message


def test_derived_without_a_real_folder_is_one_clear_error(tmp_path, capsys):
    assert main(["build", "--configs", "derived", "--out", str(tmp_path / "d")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err and "derived needs --real-data" in err[-1]
    assert not (tmp_path / "d").exists()
