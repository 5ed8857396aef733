"""Independent cross-check: nvcc (not Warp's NVRTC) compiles sample rows' module_source to PTX."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest
import warp

from builder.grammar.policy import CATEGORIES
from builder.grammar.sample import sample
from builder.warp_backend import codegen

NVCC = shutil.which("nvcc") or (
    os.path.join(os.environ["CUDA_HOME"], "bin", "nvcc") if os.environ.get("CUDA_HOME") else None
)


@pytest.mark.skipif(not NVCC or not os.path.exists(NVCC), reason="nvcc not installed")
@pytest.mark.parametrize("index", [0, 5, 14])  # kernels with an adjoint at generator 4.3.0
def test_nvcc_compiles_module_source(index, tmp_path):
    program = sample(21, "test", index, CATEGORIES).program
    tu = codegen.emit(f"index={index}", program.source, f"nv_{index}", ("cuda-backward",))["cuda-backward"].tu
    # Warp's source targets NVRTC; with the CUDA runtime headers, WP_NO_CRT would redeclare int64_t.
    src = tmp_path / "row.cu"
    src.write_text(tu.replace("#define WP_NO_CRT\n", ""))
    native = Path(warp.__file__).parent / "native"
    cmd = [
        NVCC,
        "-arch=sm_90",
        "-ptx",
        "-std=c++17",
        "-I",
        str(native),
        "-DWP_ENABLE_CUDA=1",
        "-DNDEBUG",
        str(src),
        "-o",
        str(tmp_path / "row.ptx"),
    ]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    ptx = (tmp_path / "row.ptx").read_text()
    assert f"{program.kernel_name}_cuda_kernel_forward" in ptx and f"{program.kernel_name}_cuda_kernel_backward" in ptx
