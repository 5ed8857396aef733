"""Tile programs: reductions are written and stored so that their gradient is the same on the GPU and the CPU."""

import re

import numpy as np
import pytest

from builder.grammar.sample import sample
from tests.conftest import has_cuda

SQUARED_NORM = re.compile(r"wp\.tile_sum\(wp\.tile_map\(wp\.mul, (\w+), \1\)\)")


def _squared_norm_programs(n: int = 400) -> list:
    return [d.program for i in range(n) if SQUARED_NORM.search((d := sample(0, "train", i, ("tile",))).program.source)]


EVERY_LANE_EXTRACT_STORE = re.compile(r"^    \w+\[[^\]]+\] = wp\.tile_extract\(", re.M)


def test_the_squared_norm_is_a_sum_of_squares_not_tile_dot():
    sources = [sample(0, "train", i, ("tile",)).program.source for i in range(400)]
    assert not any("wp.tile_dot(" in s for s in sources)
    assert len(_squared_norm_programs()) >= 3


def test_no_lane_of_a_block_stores_an_extracted_reduction_unguarded():
    # On an H200 (Warp 1.19) `out[i] = wp.tile_extract(wp.tile_sum(t), 0)` run by every lane of a block got
    # block_dim times the CPU's input gradient (32x at 32, 64x at 64): the CUDA adjoint of tile_extract adds
    # every lane's adjoint. A reduction is stored by the block (tile_store, tile_atomic_add) or by one lane.
    sources = [sample(s, "train", i, ("tile",)).program.source for s in (0, 1) for i in range(400)]
    assert [s for s in sources if EVERY_LANE_EXTRACT_STORE.search(s)] == []
    assert EVERY_LANE_EXTRACT_STORE.search("    i = wp.tid()\n    norms[i] = wp.tile_extract(s, 0)\n")
    assert not EVERY_LANE_EXTRACT_STORE.search("    if lane == 0:\n        out[i] = total\n")


def test_the_squared_norm_gradient_is_twice_the_tile_on_the_cpu():
    # the form the generator writes, against its derivative (2 t); the GPU test below compares the devices
    import warp as wp

    @wp.kernel
    def squared_norm(values: wp.array2d[float], out: wp.array[float]):
        i = wp.tid()
        t = wp.tile_load(values[i], shape=16)
        out[i] = wp.tile_extract(wp.tile_sum(wp.tile_map(wp.mul, t, t)), 0)

    v = np.random.default_rng(0).standard_normal((3, 16)).astype(np.float32)
    values = wp.array(v, dtype=float, requires_grad=True, device="cpu")
    out = wp.zeros(3, dtype=float, requires_grad=True, device="cpu")
    tape = wp.Tape()
    with tape:
        wp.launch_tiled(squared_norm, dim=[3], inputs=[values, out], block_dim=1, device="cpu")
    tape.backward(grads={out: wp.ones(3, dtype=float, device="cpu")})
    np.testing.assert_allclose(out.numpy(), (v * v).sum(axis=1), rtol=1e-5)
    np.testing.assert_allclose(values.grad.numpy(), 2 * v, rtol=1e-5)


@pytest.mark.gpu
@pytest.mark.skipif(not has_cuda(), reason="no CUDA GPU visible to Warp")
def test_squared_norm_programs_match_the_cpu_on_the_gpu():
    from builder.warp_backend import codegen, verify
    from builder.warp_backend import gpu as gpu_verify

    programs = _squared_norm_programs()[:4]

    def items(target):
        out = []
        for n, program in enumerate(programs):
            tu = codegen.emit(f"n={n}", program.source, f"sq_{n}", (target,), block_dim=program.block_dim)[target].tu
            out.append(verify.Item(f"n={n}", program, tu, verify.input_seed(0, "train", n)))
        return out

    fwd, bwd = items("cuda-forward"), items("cuda-backward")
    bwd = [it if it.program.backward else None for it in bwd]
    gpu_verify.compare_devices(fwd, {"cuda-forward": fwd, "cuda-backward": bwd})
    assert [it.label for it in fwd + bwd if it is not None and not it.gpu["gpu_match"]] == []
