import pytest

from builder.errors import WarpRejected
from builder.warp_backend import codegen

SRC = """import warp as wp


@wp.struct
class Body:
    mass: float
    pos: wp.vec3


@wp.func
def falloff(x: float) -> float:
    return 1.0 / (1.0 + x * x)


@wp.kernel
def scale_bodies(bodies: wp.array(dtype=Body), out: wp.array(dtype=float)):
    i = wp.tid()
    b = bodies[i]
    out[i] = falloff(wp.length(b.pos)) * b.mass
"""


def test_emit_returns_hash_free_functions_and_full_units():
    e = codegen.emit("unit", SRC, "t_codegen")
    fwd, bwd, cpu = e["cuda-forward"], e["cuda-backward"], e["cpu"]
    assert fwd.ir.startswith('extern "C" __global__ void scale_bodies_cuda_kernel_forward(')
    assert bwd.ir.startswith('extern "C" __global__ void scale_bodies_cuda_kernel_backward(')
    assert "scale_bodies_cpu_kernel_forward(" in cpu.ir
    assert (fwd.entry, bwd.entry, cpu.entry) == (
        "scale_bodies_cuda_kernel_forward",
        "scale_bodies_cuda_kernel_backward",
        "scale_bodies_cpu_forward",
    )
    assert f"void {cpu.entry}(" in cpu.tu
    assert fwd.ir in fwd.tu and bwd.ir in bwd.tu and cpu.ir in cpu.tu
    # one unit per target, as Warp writes it for a user: both CUDA passes share it, the CPU unit has adjoints
    assert fwd.tu == bwd.tu and "scale_bodies_cpu_kernel_backward(" in cpu.tu
    assert fwd.options["default_grid_stride"] is True and "for (size_t _idx = " in fwd.ir
    # no machine-specific paths leak into the published translation units
    assert "site-packages" not in bwd.tu + cpu.tu


def test_each_unit_is_the_same_alone_or_together():
    together = codegen.emit("unit", SRC, "t_all", ("cuda-backward", "cpu", "cuda-forward"))
    for config, unit in together.items():
        alone = codegen.emit("unit", SRC, f"t_{config}", (config,))
        assert alone == {config: unit}, config


def test_emit_is_deterministic():
    assert codegen.emit("a", SRC, "t_a") == codegen.emit("b", SRC, "t_b")


def test_rejected_program_names_the_row_and_kernel():
    bad = SRC.replace("b.mass", "b.massss")
    with pytest.raises(WarpRejected, match=r"scale_bodies.*seed=1 index=2"):
        codegen.emit("seed=1 index=2", bad, "t_bad")


def test_released_modules_are_freed():
    # wp.norm_l1 lives in a Warp module that records its users; release must detach them
    import gc

    from warp._src import context

    src = (
        "import warp as wp\n\n\n@wp.kernel\ndef k(a: wp.array(dtype=wp.vec3), o: wp.array(dtype=float)):\n"
        "    i = wp.tid()\n    o[i] = wp.norm_l1(a[i])\n"
    )
    for n in range(3):
        codegen.emit("leak", src, f"t_leak_{n}")
    gc.collect()
    alive = [o.name for o in gc.get_objects() if isinstance(o, context.Module) and o.name.startswith("t_leak_")]
    assert alive == []


GEMM = """import warp as wp

wp.set_module_options({"enable_mathdx_gemm": False})


@wp.kernel
def gemm(A: wp.array2d[float], B: wp.array2d[float], C: wp.array2d[float]):
    i, j = wp.tid()
    a = wp.tile_load(A, shape=(8, 4), offset=(i * 8, 0))
    b = wp.tile_load(B, shape=(4, 8), offset=(0, j * 8))
    wp.tile_store(C, wp.tile_matmul(a, b), offset=(i * 8, j * 8))
"""


def test_tile_matmul_emits_the_scalar_gemm_for_every_target_when_the_module_turns_libmathdx_off():
    e = codegen.emit("unit", GEMM, "t_codegen_gemm")
    for unit in e.values():
        assert "wp::tile_matmul(" in unit.ir and "dot_" not in unit.ir, unit.ir


def test_tile_matmul_on_cuda_calls_cublasdx_when_the_module_leaves_libmathdx_on():
    # what Warp emits for sm_90 by default: a call to a cuBLASDx function whose code is LTO-IR, not in the unit
    if not codegen._ctx.runtime.core.wp_is_mathdx_enabled():
        pytest.skip("this Warp build has no libmathdx")
    e = codegen.emit("unit", GEMM.replace('wp.set_module_options({"enable_mathdx_gemm": False})\n', ""), "t_gemm")
    assert "dot_8_8_4_90_" in e["cuda-forward"].ir and "dot_" not in e["cpu"].ir


def test_warp_accepts_the_first_thousand_programs_of_the_default_seed():
    # Warp's own parser is the judge of what the grammar writes: a statement it rejects stops a build (a tuple
    # assignment `h, w = a[i], b[i]` then `wp.tile(h)` did, at the default seed's train row 61, in a draft of 4.2.0)
    from builder.grammar.policy import CATEGORIES
    from builder.grammar.sample import sample

    for index in range(1000):
        program = sample(0, "train", index, CATEGORIES).program
        codegen.emit(f"index={index}", program.source, f"accept_{index}", ("cpu",), block_dim=program.block_dim)
