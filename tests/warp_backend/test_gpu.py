"""Runs only where Warp sees a CUDA device."""

import pytest

from tests.conftest import has_cuda

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not has_cuda(), reason="no CUDA GPU visible to Warp")]


def test_gpu_verified_rows_match_the_cpu(tmp_path):
    from warp_cuda_ir import WarpCudaIR

    b = WarpCudaIR(
        config_name="gpu-verified", cache_dir=str(tmp_path), seed=2, num_train=15, num_validation=0, num_test=0
    )
    b.download_and_prepare()
    rows = list(b.as_dataset(split="train"))
    assert len(rows) == 30 and {r["pass"] for r in rows} == {"forward", "backward"}
    assert all(r["gpu_match"] and r["gpu_name"] for r in rows)
