"""codegen's adapter takes a kernel by name or object: @wp.kernel(...), generic, enable_backward=False, tiles."""

import importlib

import pytest

from builder.errors import WarpRejected
from builder.warp_backend import codegen, units

SRC = """from typing import Any

import warp as wp


@wp.func
def sq(x: float) -> float:
    return x * x


@wp.kernel
def first(a: wp.array(dtype=float)):
    a[wp.tid()] = 1.0


@wp.kernel(enable_backward=False)
def no_adjoint(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = sq(a[i])


@wp.kernel
def doubled(a: wp.array(dtype=Any)):
    i = wp.tid()
    a[i] = a[i] + a[i]


wp.overload(doubled, {"a": wp.array(dtype=wp.float64)})


@wp.kernel
def tiled(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float)):
    i, j = wp.tid()
    t = wp.tile_load(a, shape=(16, 16), offset=(i * 16, j * 16))
    wp.tile_store(b, wp.tile_map(wp.sin, t), offset=(i * 16, j * 16))
"""


def test_kernel_in_reads_bare_and_called_decorators():
    # the last kernel: a generated program's own comes after its module's sibling kernels
    assert units.kernel_in(SRC) == "tiled"
    assert units.kernel_in(SRC.replace("@wp.kernel\ndef tiled", "@wp.func\ndef tiled")) == "doubled"
    assert units.kernel_in(SRC.split("\n\n\n@wp.kernel(enable_backward=False)")[0]) == "first"


@pytest.mark.parametrize("name", ["first", "no_adjoint", "doubled", "tiled"])
def test_emit_builds_the_named_kernel_alone(name):
    units = codegen.emit("t", SRC, f"t_named_{name}", ("cuda-forward", "cpu"), kernel=name)
    fwd, cpu = units["cuda-forward"], units["cpu"]
    assert fwd.ir.startswith(f'extern "C" __global__ void {name}_cuda_kernel_forward(')
    assert f"{name}_cpu_kernel_forward(" in cpu.ir and cpu.entry == f"{name}_cpu_forward"
    others = {"first", "no_adjoint", "doubled", "tiled"} - {name}
    assert not any(f"{o}_cuda_kernel_forward" in fwd.tu for o in others)  # only the chosen kernel is built


def test_generic_kernel_uses_its_overload():
    ir = codegen.emit("t", SRC, "t_generic", ("cuda-forward",), kernel="doubled")["cuda-forward"].ir
    assert "wp::float64" in ir


def test_enable_backward_false_has_no_backward_unit():
    with pytest.raises(WarpRejected, match="enable_backward=False"):
        codegen.emit("t", SRC, "t_nobwd", ("cuda-backward",), kernel="no_adjoint")
    both = codegen.emit("t", SRC, "t_bwd", ("cuda-backward",), kernel="first")["cuda-backward"]
    assert both.entry == "first_cuda_kernel_backward"


def test_unknown_or_unresolved_names_are_refused():
    with pytest.raises(WarpRejected, match="no @wp.kernel named 'sq'"):
        codegen.emit("t", SRC, "t_sq", ("cpu",), kernel="sq")
    generic_only = SRC.replace('wp.overload(doubled, {"a": wp.array(dtype=wp.float64)})\n', "")
    with pytest.raises(WarpRejected, match="generic kernel without overloads"):
        codegen.emit("t", generic_only, "t_gen0", ("cpu",), kernel="doubled")


def test_tile_kernel_is_specialised_for_its_block_dim():
    from builder.shipped.launches import block_dim_in_source

    mod = importlib.import_module("warp.examples.tile.example_tile_fft")  # import only: main code is guarded
    kernel = mod.fft_tiled
    with pytest.raises(WarpRejected, match="block_dim"):
        codegen.emit_kernel("fft", kernel, ("cuda-forward",), block_dim=256)
    text = open(mod.__file__, encoding="utf-8").read()
    block_dim = block_dim_in_source(text, "fft_tiled")
    assert block_dim is not None and block_dim != 256
    unit = codegen.emit_kernel("fft", kernel, ("cuda-forward",), block_dim=block_dim)["cuda-forward"]
    assert f"#define WP_TILE_BLOCK_DIM {block_dim}\n" in unit.tu
    assert unit.entry == "fft_tiled_cuda_kernel_forward"


def test_a_skip_reason_names_no_file_of_this_machine():
    from builder.warp_backend.shipped_results import emit_reason

    message = "WarpCodegenError: In function 'slot_add' at /site-packages/warp/tests/test_x.py:123:"
    assert emit_reason(message) == "WarpCodegenError: In function 'slot_add'"
