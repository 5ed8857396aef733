"""real-train: a generic kernel its package never instantiates gets a float32 instance, declared in the row's source
as the package would write it, and that row is what Warp's public pipeline writes once the declaration runs."""

import ast

import pytest

from builder.config import BuildOptions
from builder.sources.shipped import ShippedSource, overload_declarations
from builder.sources.shipped.rows import Sample, Summary, shipped_rows
from builder.validate.fidelity import differences
from builder.warp_backend import codegen, public

# skrl's element-wise ops: eight generic kernels (wp.array(ndim=N) of any dtype), launched with the caller's arrays
MODULE = "skrl.utils.framework.warp.ops"


@pytest.fixture(scope="module")
def rows():
    pytest.importorskip("skrl", reason="the real-train extra installs skrl")
    summary = Summary()
    got = list(
        shipped_rows(BuildOptions("real-train", real_sources="skrl", verify="none"), Sample(modules=(MODULE,)), summary)
    )
    return got, summary


def test_every_generic_kernel_of_the_module_gets_a_float32_instance(rows):
    got, summary = rows
    kernels = {r["kernel_name"] for r in got}
    assert kernels == {f"_{op}_{n}d" for op in ("clamp", "type_cast") for n in (1, 2, 3, 4)}
    assert "generic kernel without overloads" not in summary.kernels_skipped
    for r in got:
        (declared,) = overload_declarations(r["python_source"])
        assert r["python_source"].endswith(declared + "\n")
        call = ast.parse(declared).body[0].value
        assert call.args[0].id == r["kernel_name"]
        assert all("wp.float32" in ast.unparse(v) for v in call.args[1].values)
        assert "wp::float32" in r["ir"]


def test_the_source_stands_alone_and_emits_the_row(rows):
    row = next(r for r in rows[0] if r["target"] == "cpu" and r["kernel_name"] == "_clamp_2d")
    again = codegen.emit("again", row["python_source"], "t_derived_again", ("cpu",), kernel=row["kernel_name"])
    body = [line for line in again["cpu"].ir.splitlines() if not line.lstrip().startswith("//")]
    assert body == [line for line in row["ir"].splitlines() if not line.lstrip().startswith("//")]


def test_warp_public_pipeline_writes_the_row_once_the_declaration_runs(rows):
    picked = [r for r in rows[0] if r["kernel_name"] == "_type_cast_3d" and r["target"] in ("cpu", "cuda")]
    key, block_dim = ShippedSource().public_reference(picked[0])
    bare = key.partition("\n")[0]
    assert key != bare and all(ShippedSource().public_reference(r) == (key, block_dim) for r in picked)
    with_declaration, without = public.public_units([(key, block_dim), (bare, block_dim)], workers=2)
    for r in picked:
        assert differences(r, with_declaration) == ""
        # the package alone instantiates none of the module's kernels: Warp has nothing to compile
        assert "No compilable kernels" in differences(r, without)
