"""real's training packages: a generic kernel its package never instantiates gets a float32 instance, declared in
the row's source as the package would write it, and that row is what Warp's public pipeline writes once the
declaration runs."""

import ast

import pytest

from builder.build_options import BuildOptions
from builder.checks.fidelity import differences
from builder.sources.shipped import ShippedSource, overload_declarations
from builder.sources.shipped.rows import Sample, Summary, shipped_rows
from builder.warp_backend import codegen, public

# skrl's element-wise ops: eight generic kernels (wp.array(ndim=N) of any dtype), launched with the caller's arrays
MODULE = "skrl.utils.framework.warp.ops"


@pytest.fixture(scope="module")
def rows():
    pytest.importorskip("skrl", reason="the real extra installs skrl")
    summary = Summary()
    got = list(
        shipped_rows(BuildOptions("real", real_sources="skrl", verify="none"), Sample(modules=(MODULE,)), summary)
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
        assert differences(r, with_declaration, ShippedSource()) == ""
        # the package alone instantiates none of the module's kernels: Warp has nothing to compile
        assert "No compilable kernels" in differences(r, without, ShippedSource())


# warpSPHCore's gradient: its generic kernels take the package's particle and correction structs as `Any`
# (Package.struct_instances), read helpers its star imports bring, and reject float32 values (they take arrays)
SPH_MODULE = "warpSPHCore.coreOperations.wp_gradient"


@pytest.fixture(scope="module")
def sph_rows():
    pytest.importorskip("warpSPHCore", reason="the real extra installs warpsphcore")
    return list(
        shipped_rows(BuildOptions("real", real_sources="warpsphcore", verify="none"), Sample(modules=(SPH_MODULE,)))
    )


def test_a_struct_taken_as_any_gets_the_struct_the_package_passes_and_values_warp_accepts(sph_rows):
    cpu = {r["kernel_name"]: r for r in sph_rows if r["target"] == "cpu"}
    assert set(cpu) == {"computeSPHGradientTensor_Kernel", "computeSPHGradientTensor_KernelTiled"}
    for r in cpu.values():
        (declared,) = overload_declarations(r["python_source"])
        spelled = ast.parse(declared).body[0].value.args[1]
        types = {k.value: ast.unparse(v) for k, v in zip(spelled.keys, spelled.values)}
        assert types["queryState"] == types["referenceState"] == "particleDataSoA_3"
        assert types["correctionData"] == "correctionData_3"
        # float32 values are rejected (the body indexes them): the first choice Warp accepts is an array of vec3
        assert types["queryValues"] == "wp.array(dtype=wp.vec3)"
        assert "from warpSPHCore.util import *\n" in r["python_source"]  # the star imports its helpers come from


def test_a_struct_instance_row_is_what_warp_public_pipeline_writes(sph_rows):
    picked = [r for r in sph_rows if r["kernel_name"] == "computeSPHGradientTensor_Kernel"]
    again = codegen.emit("again", picked[0]["python_source"], "t_sph_again", ("cpu",), kernel=picked[0]["kernel_name"])
    cpu = next(r for r in picked if r["target"] == "cpu")
    body = [line for line in again["cpu"].ir.splitlines() if not line.lstrip().startswith("//")]
    assert body == [line for line in cpu["ir"].splitlines() if not line.lstrip().startswith("//")]
    key, block_dim = ShippedSource().public_reference(picked[0])
    (units,) = public.public_units([(key, block_dim)], workers=1)
    for r in picked:
        assert differences(r, units, ShippedSource()) == ""
