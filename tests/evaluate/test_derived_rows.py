"""``evaluate --config derived``: variants of real's train kernels scored as real's rows are, on inputs built from
their argument types (a variant's inputs are not regenerated from a grammar seed: it has none)."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from builder.build_options import BuildOptions
from builder.cli import main
from builder.evaluate import baselines
from builder.schema import features
from builder.sources.shipped.rows import Sample, shipped_rows

MODULE = "warp.examples.optim.example_particle_repulsion"  # integrate: a kernel whose inputs can be built


@pytest.fixture(scope="module")
def derived_rows(tmp_path_factory):
    real = tmp_path_factory.mktemp("real_for_derived")
    got = list(shipped_rows(BuildOptions("real", real_sources="examples", verify="none"), Sample(modules=(MODULE,))))
    (real / "real").mkdir()
    pq.write_table(
        pa.Table.from_pylist(got, schema=features("real").arrow_schema), real / "real" / "train-00000-of-00001.parquet"
    )
    out = tmp_path_factory.mktemp("derived") / "data"
    argv = ["build", "--configs", "derived", "--real-data", str(real), "--num-derived", "2", "--verify", "none"]
    assert main([*argv, "--out", str(out)]) == 0
    rows = pq.read_table(sorted((out / "derived").glob("train-*.parquet"))[0]).to_pylist()
    return out, [r for r in rows if r["target"] == "cpu" and r["kernel_name"] == "integrate"]


def test_a_variant_is_scored_on_inputs_built_from_its_argument_types(derived_rows, tmp_path):
    folder, rows = derived_rows
    assert rows, "integrate has variants"
    lines = [{"id": r["id"], "ir": r["ir"]} for r in rows]  # the references
    lines += [{"id": r["id"], "python": r["python_source"]} for r in rows]  # the same kernels, as Python
    lines += [{"id": r["id"], "ir": baselines.empty(r)} for r in rows]  # computes nothing
    pred, out = tmp_path / "pred.jsonl", tmp_path / "report.json"
    pred.write_text("".join(json.dumps(x) + "\n" for x in lines))
    argv = ["evaluate", "--data", str(folder), "--config", "derived", "--split", "train", "--predictions", str(pred)]
    assert main([*argv, "--out", str(out), "--num-proc", "2"]) == 0
    results = json.loads(out.read_text())["results"]
    n = len(rows)
    assert [r["functional"] for r in results[: 2 * n]] == [True] * 2 * n, results[: 2 * n]
    assert [r["functional"] for r in results[2 * n :]] == [False] * n
