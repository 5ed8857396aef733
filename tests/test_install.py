"""The installed package works from any directory, including one holding a built ``warp_cuda_ir/`` folder."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
IMPORTS = "from warp_cuda_ir import WarpCudaIR; import builder.cli, builder.validate, dataset_card.render; print('ok')"


def _python(code: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # only what the install provides
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=cwd, env=env, timeout=120)


def test_import_beside_a_folder_named_warp_cuda_ir(tmp_path):
    # the default --out is ./warp_cuda_ir: a folder of that name must not shadow the module
    (tmp_path / "warp_cuda_ir" / "cpu").mkdir(parents=True)
    proc = _python(IMPORTS, tmp_path)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr


def test_import_from_an_unrelated_directory(tmp_path):
    proc = _python(IMPORTS + "; import warp_cuda_ir; print(warp_cuda_ir.__file__)", tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert Path(proc.stdout.split()[-1]).name == "warp_cuda_ir.py"


def test_console_script_beside_a_folder_named_warp_cuda_ir(tmp_path):
    (tmp_path / "warp_cuda_ir").mkdir()
    proc = subprocess.run(
        [sys.executable, "-m", "builder.cli", "validate", "warp_cuda_ir"], capture_output=True, text=True, cwd=tmp_path
    )
    assert proc.returncode == 2 and "holds no CONFIG/SPLIT-*.parquet shards" in proc.stderr, proc.stderr
