"""Collecting shipped modules (in child processes) gives deterministic ids; real rows compile; opt-outs hold."""

import pytest

from builder.build_options import BuildOptions
from builder.schema import columns, features
from builder.shipped.modules import modules
from builder.sources.shipped.rows import Sample, Summary, shipped_rows
from builder.warp_backend import codegen, shipped_import

MODULES = ("warp.examples.core.example_dem", "warp.examples.optim.example_particle_repulsion", "warp._src.optim.adam")


def _collect_ids():
    found = [m for m in modules(("examples", "library")) if m.name in MODULES]
    ids = []
    for mod in found:
        res = shipped_import.collect(mod, ("cuda-forward",), timeout=120)
        assert res.skipped == "", (mod.name, res.skipped)
        ids += [(mod.source, mod.name, k.key, k.signature, k.line) for k in res.kernels]
    return ids


def test_collection_is_deterministic_and_in_source_order():
    first, second = _collect_ids(), _collect_ids()
    assert first == second
    assert [i[1] for i in first] == sorted((i[1] for i in first), key=lambda n: (n.startswith("warp._src"), n))
    dem = [i for i in first if i[1] == "warp.examples.core.example_dem"]
    assert [k for _, _, k, _, _ in dem] == ["apply_forces", "integrate"]
    assert {i[0] for i in first} == {"examples", "library"}


def test_real_rows_compile_and_opt_outs_have_no_backward_row():
    summary = Summary()
    opts, subset = BuildOptions("real", real_sources="examples", verify="compile"), Sample(modules=MODULES[:2])
    got = list(shipped_rows(opts, subset, summary))
    assert got and all(r["compiled"] for r in got)
    assert all(list(r) == list(columns("real")) for r in got)
    for r in got:
        config = "cpu" if r["target"] == "cpu" else f"cuda-{r['pass']}"
        module = r["source_path"].split(":")[0][:-3].replace("/", ".")
        assert r["id"] == f"real/{r['split']}/{module}:{r['kernel_name']}/{config}" and r["split"] == "train"
        assert r["entry_point"] in r["module_source"] and r["ir"] in r["module_source"]
        assert r["source_path"].startswith(("warp/examples/core/example_dem.py:", "warp/examples/optim/"))
        if r["target"] == "cuda":
            assert r["compile_target"] == "sm_90" and r["ptx"].count(".entry") == 1 and r["ptx_instructions"] > 0
            assert r["entry_point"] in r["ptx"]
        else:
            assert r["compile_target"] == "cpu" and r["ptx"] is None
    repulsion = [r for r in got if "particle_repulsion" in r["id"]]
    assert repulsion and all(r["pass"] == "forward" for r in repulsion)  # both kernels set enable_backward=False
    dem = {r["id"] for r in got if "example_dem" in r["id"]}
    assert "real/train/warp.examples.core.example_dem:integrate/cuda-backward" in dem
    assert summary.rows_left_out == {} and summary.kernels["examples"] == 4
    assert [r["id"] for r in shipped_rows(opts, subset)] == [r["id"] for r in got]


def test_python_source_stands_alone_and_emits_the_same_kernel():
    got = list(
        shipped_rows(
            BuildOptions("real", real_sources="examples", verify="none"), Sample(modules=MODULES[:1], max_kernels=1)
        )
    )
    row = next(r for r in got if r["target"] == "cuda" and r["pass"] == "forward")
    assert row["python_source"].startswith("import warp as wp\n")
    again = codegen.emit("again", row["python_source"], "t_real_again", ("cuda-forward",), kernel=row["kernel_name"])
    assert again["cuda-forward"].entry == row["entry_point"]
    body = [line for line in again["cuda-forward"].ir.splitlines() if not line.lstrip().startswith("//")]
    assert body == [line for line in row["ir"].splitlines() if not line.lstrip().startswith("//")]


def test_builder_config_real_puts_a_held_out_package_in_test_and_a_training_package_in_train(tmp_path):
    from warp_cuda_ir import WarpCudaIR

    # warp-nn (held out whole) and warp-jsb (a training package: 5 modules, 5 kernels, one without a cuda-backward
    # row Warp can emit)
    kw = {"verify": "none", "real_sources": "warp-nn,warp-jsb"}
    b = WarpCudaIR(config_name="real", cache_dir=str(tmp_path / "hf"), **kw)
    b.download_and_prepare()
    assert sorted(b.info.splits) == ["test", "train"]
    train, test = b.as_dataset(split="train"), b.as_dataset(split="test")
    assert train.features == test.features == features("real")
    assert {r["package"] for r in train} == {"warp-jsb"} and {r["license"] for r in train} == {"MIT"}
    assert all(r["id"].startswith("real/train/warp_jsb.") and r["split_group"] == "train-only" for r in train)
    assert len({r["id"].rsplit("/", 1)[0] for r in train}) == 5  # five kernels, a row per target and pass
    assert {r["package"] for r in test} == {"warp-nn"}
    assert all(r["id"].startswith("real/test/warp_nn.") and r["split_group"] == "held-out" for r in test)


def test_module_cli_writes_parquet_and_refuses_bad_arguments(tmp_path, capsys):
    import pyarrow.parquet as pq

    from builder.sources.shipped.__main__ import main

    assert main(["--stride", "tests=0"]) == 2
    out = tmp_path / "real.parquet"
    assert main(["--sources", "examples", "--limit", "1", "--verify", "none", "--out", str(out)]) == 0
    assert pq.read_table(out).column_names == list(columns("real"))
    assert "modules skipped:" in capsys.readouterr().out
    assert [p.name for p in tmp_path.iterdir()] == ["real.parquet"]


def test_class_bound_library_kernel_stands_alone():
    mod = next(m for m in modules(("library",)) if m.name == "warp._src.fem.geometry.trimesh")
    res = shipped_import.collect(mod, ("cuda-forward",), timeout=120)
    kernel = next(k for k in res.kernels if "\nclass Trimesh" in k.python_source)  # reads Trimesh's own funcs
    assert kernel.nested and kernel.unresolved == () and kernel.key.startswith("Trimesh___")
    again = codegen.emit("again", kernel.python_source, "t_trimesh_again", ("cuda-forward",), kernel=kernel.key)
    body = [line for line in again["cuda-forward"].ir.splitlines() if not line.lstrip().startswith("//")]
    assert body == [line for line in kernel.units["cuda-forward"][1].splitlines() if not line.lstrip().startswith("//")]


def test_a_bad_sample_is_refused_and_execute_means_compiled():
    from builder.errors import ConfigError
    from builder.sources.shipped.rows import evidence

    with pytest.raises(ConfigError, match="max_kernels must be a positive integer"):
        Sample(max_kernels=0)
    with pytest.raises(ConfigError, match="bad stride"):
        Sample(stride={"docs": 2})
    assert [evidence(v) for v in ("none", "compile", "execute")] == ["none", "compile", "compile"]
