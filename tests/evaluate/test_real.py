"""``evaluate --config real``: shipped kernels scored on inputs built from their argument types.

A small real fixture: the rows of two example modules (``verify=none``: the evaluator compiles what it needs),
holding a kernel whose inputs can be built (``integrate``), one that takes a hash grid's id (``compute_forces``)
and one with no arguments at all (``dummy_kernel``: any body leaves nothing different).
"""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from builder.build_options import BuildOptions
from builder.cli import main
from builder.evaluate import baselines
from builder.evaluate.functional import BODY_FREE, NO_GPU
from builder.evaluate.mutants import mutants
from builder.schema import features
from builder.sources.shipped.rows import Sample, shipped_rows
from tests.conftest import has_cuda

MODULES = ("warp.examples.benchmarks.benchmark_graph_allocs", "warp.examples.optim.example_particle_repulsion")
INTEGRATE = "real/train/warp.examples.optim.example_particle_repulsion:integrate/cpu"
FORCES = "real/train/warp.examples.optim.example_particle_repulsion:compute_forces/cpu"
DUMMY = "real/train/warp.examples.benchmarks.benchmark_graph_allocs:dummy_kernel/cpu"


@pytest.fixture(scope="module")
def real_folder(tmp_path_factory):
    out = tmp_path_factory.mktemp("real_fixture")
    got = list(shipped_rows(BuildOptions("real", real_sources="examples", verify="none"), Sample(modules=MODULES)))
    (out / "real").mkdir()
    table = pa.Table.from_pylist(got, schema=features("real").arrow_schema)
    pq.write_table(table, out / "real" / "train-00000-of-00001.parquet")  # both modules are in real's train split
    return out, {r["id"]: r for r in got}


@pytest.fixture(scope="module")
def real_report(real_folder, tmp_path_factory):
    folder, by_id = real_folder
    tmp = tmp_path_factory.mktemp("eval_real")
    lines = [{"id": i, "ir": by_id[i]["ir"], "case": "reference"} for i in (INTEGRATE, FORCES, DUMMY)]
    lines.append({"id": INTEGRATE, "ir": baselines.empty(by_id[INTEGRATE]), "case": "empty"})
    lines += [m | {"case": m["operator"]} for m in mutants([by_id[INTEGRATE]])]
    cuda = INTEGRATE.replace("/cpu", "/cuda-forward")
    lines.append({"id": cuda, "ir": by_id[cuda]["ir"], "case": "cuda reference"})
    pred, out = tmp / "pred.jsonl", tmp / "report.json"
    pred.write_text("".join(json.dumps(x) + "\n" for x in lines))
    argv = ["evaluate", "--data", str(folder), "--config", "real", "--split", "train", "--predictions", str(pred)]
    assert main([*argv, "--out", str(out), "--num-proc", "2", "--timeout", "60"]) == 0
    return json.loads(out.read_text()), [x["case"] for x in lines]


def test_a_kernel_with_buildable_inputs_is_scored(real_report):
    rep, cases = real_report
    got = {(c, r["id"]): r for c, r in zip(cases, rep["results"])}
    ref = got["reference", INTEGRATE]
    assert (ref["exact_match"], ref["compiled"], ref["functional"], ref["not_scored"]) == (True, True, True, "")
    empty = got["empty", INTEGRATE]
    assert (empty["compiled"], empty["functional"], empty["reason"]) == (True, False, "wrong output")


def test_wrong_but_plausible_bodies_fail(real_report, real_folder):
    rep, cases = real_report
    _, by_id = real_folder
    lines = [m for m in mutants([by_id[INTEGRATE]])]
    wrong = [(m, r) for m, r in zip(lines, rep["results"][4:]) if m["id"] == r["id"]]
    assert len(wrong) == len(lines) >= 2 and all(r["compiled"] for _, r in wrong)
    for m, r in wrong:
        # integrate wraps positions at N_GRID = 128; its inputs are in [0.1, 1], so no position reaches the wrap and
        # a changed N_GRID computes the same: the one mutant no input trial can tell apart
        equivalent = m["operator"] == "constant_changed" and "var_13 = 128;" in by_id[INTEGRATE]["ir"]
        equivalent = equivalent and "var_13 = 128;" not in m["ir"]
        assert r["functional"] is (True if equivalent else False), (m["operator"], r)


def test_kernels_that_cannot_be_run_are_compiled_and_counted_by_reason(real_report):
    rep, cases = real_report
    got = {(c, r["id"]): r for c, r in zip(cases, rep["results"])}
    forces, dummy = got["reference", FORCES], got["reference", DUMMY]
    assert forces["compiled"] and forces["functional"] is None and "uint64" in forces["not_scored"]
    assert dummy["compiled"] and dummy["functional"] is None and dummy["not_scored"] == BODY_FREE
    reasons = rep["not_scored"]
    assert reasons[BODY_FREE] == 1 and sum(n for k, n in reasons.items() if "uint64" in k) == 1
    cuda = got["cuda reference", INTEGRATE.replace("/cpu", "/cuda-forward")]
    assert cuda["compiled"] and cuda["exact_match"]
    if not has_cuda():  # left out of functional rather than making the whole rate null
        assert cuda["not_scored"] == NO_GPU and reasons[NO_GPU] == 1
    assert rep["functional_rows"] == (1 if not has_cuda() else 2)
    assert rep["exact_match"] == pytest.approx(4 / len(cases))
    # the reference and the equivalent mutant (test_wrong_but_plausible_bodies_fail) are functional
    assert rep["functional"] == pytest.approx(2 / sum(1 for r in rep["results"] if not r["not_scored"]))


# one small module of each package the real config collects
EVERY_PACKAGE = (
    "warp.examples.optim.example_particle_repulsion",
    "newton.examples.cable.example_cable_twist",
    "mujoco_warp._src.inverse",
    "nvalchemiops.dynamics.utils.shared_kernels",
    "warp_nn.runtime._onnx_kernels",
)


@pytest.mark.slow
def test_reference_predictions_score_one_in_every_package_and_are_reported_by_package(tmp_path):
    from builder.shipped.packages import BY_DISTRIBUTION

    scored = {d for d, p in BY_DISTRIBUTION.items() if p.use == "evaluation"}  # one module of each evaluation package
    opts = BuildOptions("real", verify="none")
    got = [r for r in shipped_rows(opts, Sample(modules=EVERY_PACKAGE)) if r["target"] == "cpu"]
    assert {r["package"] for r in got} == scored
    assert all(
        r["license"] == "Apache-2.0" and r["package_version"] == BY_DISTRIBUTION[r["package"]].version for r in got
    )
    (tmp_path / "real").mkdir()
    table = pa.Table.from_pylist(got, schema=features("real").arrow_schema)
    pq.write_table(table, tmp_path / "real" / "test-00000-of-00001.parquet")
    pred, out = tmp_path / "pred.jsonl", tmp_path / "report.json"
    pred.write_text("".join(json.dumps({"id": r["id"], "ir": r["ir"]}) + "\n" for r in got))
    argv = ["evaluate", "--data", str(tmp_path), "--config", "real", "--split", "test", "--predictions", str(pred)]
    assert main([*argv, "--out", str(out), "--num-proc", "2", "--timeout", "120"]) == 0
    rep = json.loads(out.read_text())
    assert set(rep["by_package"]) == scored
    # nvalchemi-toolkit-ops and warp-nn are held out whole; the others are split by module
    assert set(rep["by_group"]) == {"in-project", "held-out"}
    held = sum(1 for r in got if r["package"] in ("nvalchemi-toolkit-ops", "warp-nn"))
    assert rep["by_group"]["held-out"]["rows"] == held > 0
    for pkg, s in rep["by_package"].items():
        assert (s["exact_match"], s["compiled"]) == (1.0, 1.0), (pkg, s)
        assert s["functional"] in (None, 1.0), (pkg, s)  # a reference never fails where it can be run


def test_the_kernels_own_python_scores_as_its_ir_does(real_folder, tmp_path):
    """A Python prediction of a shipped kernel: Warp loads the module, the kernel of the row's name and argument
    types runs on the inputs built from those types; kernels that cannot be run are left out as for IR."""
    folder, by_id = real_folder
    lines = [{"id": i, "python": by_id[i]["python_source"]} for i in (INTEGRATE, FORCES, DUMMY)]
    pred, out = tmp_path / "pred.jsonl", tmp_path / "report.json"
    pred.write_text("".join(json.dumps(x) + "\n" for x in lines))
    argv = ["evaluate", "--data", str(folder), "--config", "real", "--split", "train", "--predictions", str(pred)]
    assert main([*argv, "--out", str(out), "--num-proc", "2", "--timeout", "60"]) == 0
    report = json.loads(out.read_text())
    results = {r["id"]: r for r in report["results"]}
    assert all(r["loaded"] and r["compiled"] and r["exact_match"] for r in results.values())
    assert results[INTEGRATE]["functional"] is True and not results[INTEGRATE]["not_scored"]
    assert results[DUMMY]["not_scored"] == BODY_FREE and results[FORCES]["not_scored"]
    assert report["loaded"] == 1.0 and report["functional"] == 1.0
