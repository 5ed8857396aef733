import pytest

from builder import codegen

SRC = '''import warp as wp


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
'''


def test_emit_returns_hash_free_functions_and_full_units():
    e = codegen.emit("unit", SRC, "t_codegen")
    assert e.cuda_forward.startswith('extern "C" __global__ void scale_bodies_cuda_kernel_forward(')
    assert e.cuda_backward.startswith('extern "C" __global__ void scale_bodies_cuda_kernel_backward(')
    assert "scale_bodies_cpu_kernel_forward(" in e.cpu_forward
    assert "scale_bodies_cpu_forward(" in e.cpu_entry
    assert e.cuda_forward in e.cuda_forward_tu and e.cuda_backward in e.cuda_backward_tu
    assert "_cuda_kernel_backward" not in e.cuda_forward_tu
    assert e.cpu_forward in e.cpu_tu
    # no machine-specific paths leak into the published translation units
    assert "site-packages" not in e.cuda_backward_tu + e.cpu_tu


def test_emit_is_deterministic():
    assert codegen.emit("a", SRC, "t_a") == codegen.emit("b", SRC, "t_b")


def test_rejected_program_names_the_row_and_kernel():
    bad = SRC.replace("b.mass", "b.massss")
    with pytest.raises(codegen.WarpRejected, match=r"scale_bodies.*seed=1 index=2"):
        codegen.emit("seed=1 index=2", bad, "t_bad")
