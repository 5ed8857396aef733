"""scripts/gpu_compare.py: bad arguments and a machine without a GPU are one line and exit 2."""

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import has_cuda

ROOT = Path(__file__).resolve().parents[2]


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "scripts/gpu_compare.py", *args], cwd=ROOT, capture_output=True, text=True, check=False
    )


def test_bad_arguments_are_one_line(tmp_path):
    (tmp_path / "a_file").write_text("")
    for args in (["--programs", "0", "--out", str(tmp_path)], ["--out", str(tmp_path / "a_file")]):
        r = _run(*args)
        assert r.returncode == 2 and r.stderr.count("\n") == 1 and r.stderr.startswith("gpu_compare: "), r.stderr


@pytest.mark.skipif(has_cuda(), reason="checks the message on a machine without a GPU")
def test_without_a_gpu_it_says_so(tmp_path):
    r = _run("--programs", "2", "--out", str(tmp_path / "new" / "folder"))  # created only when the run can start
    assert r.returncode == 2 and r.stderr.strip().endswith("gpu_compare: no CUDA GPU visible to Warp")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.gpu
@pytest.mark.skipif(not has_cuda(), reason="no CUDA GPU visible to Warp")
def test_every_comparison_is_reported(tmp_path):
    import json

    r = _run("--programs", "30", "--num-proc", "2", "--out", str(tmp_path))
    assert r.returncode == 0, r.stderr
    report = json.loads((tmp_path / "compare.json").read_text())
    assert report["by"]["all/cuda-forward"]["rows"] == 30
    assert report["by"]["all/cuda-forward"]["match"] == 30
