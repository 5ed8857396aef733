"""Runs only where Warp sees a CUDA device."""

import pytest

from builder.grammar.sample import sample
from tests.conftest import has_cuda

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not has_cuda(), reason="no CUDA GPU visible to Warp")]


def test_gpu_verified_rows_match_the_cpu(tmp_path):
    from builder.grammar.policy import CATEGORIES
    from warp_cuda_ir import WarpCudaIR

    # a kernel declared enable_backward=False has a forward row only
    backward = sum(sample(2, "train", i, CATEGORIES).program.backward for i in range(15))

    b = WarpCudaIR(
        config_name="gpu-verified", cache_dir=str(tmp_path), seed=2, num_train=15, num_validation=0, num_test=0
    )
    b.download_and_prepare()
    rows = list(b.as_dataset(split="train"))
    assert len(rows) == 15 + backward and {r["pass"] for r in rows} == {"forward", "backward"}
    assert all(r["gpu_match"] and r["gpu_name"] for r in rows)


def test_tile_programs_match_the_cpu_at_their_block_dim():
    # A module built at one block_dim and launched at another ran the first build's binary (cached under a
    # name without the block_dim, see warp_backend/gpu.py): wrong tile results for 31 of 95 tile programs on
    # an H100. Each batch now holds one block_dim.
    from builder.grammar.policy import CATEGORIES
    from builder.warp_backend import codegen, verify
    from builder.warp_backend import gpu as gpu_verify

    picked = [i for i in range(400) if sample(0, "train", i, CATEGORIES).program.block_dim][:8]

    def items(target):
        out = []
        for index in picked:
            program = sample(0, "train", index, CATEGORIES).program
            tu = codegen.emit(f"index={index}", program.source, f"tt_{index}", (target,))[target].tu
            out.append(verify.Item(f"index={index}", program, tu, verify.input_seed(0, "train", index)))
        return out

    fwd, bwd = items("cuda-forward"), items("cuda-backward")
    bwd = [it if it.program.backward else None for it in bwd]
    gpu_verify.compare_devices(fwd, {"cuda-forward": fwd, "cuda-backward": bwd})
    assert len(picked) == 8
    assert [it.label for it in fwd + bwd if it is not None and not it.gpu["gpu_match"]] == []
