import os
import shutil
import sys
from pathlib import Path

import pytest

# scripts/ holds command-line tools (validate, push_to_hub, stream_example) that tests import
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_DISABLE_PROGRESS_BARS", "1")


@pytest.fixture(autouse=True)
def _hf_cache(tmp_path, monkeypatch):
    """Keep every test's datasets cache private and offline."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "hf_datasets"))
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf_home"))


def has_cuda() -> bool:
    from builder.warp_backend import codegen

    return codegen.cuda_available()


@pytest.fixture(scope="session")
def folder(tmp_path_factory) -> Path:
    """One tiny built folder per session (cuda-forward and cpu, 6/2/2 rows, 2 shards), shared read-only."""
    from builder.cli import main

    out = tmp_path_factory.getbasetemp() / "warp_cuda_ir_fixture"
    base = tmp_path_factory.getbasetemp()
    saved = {k: os.environ.get(k) for k in ("HF_HUB_OFFLINE", "HF_DATASETS_CACHE", "HF_HOME")}
    os.environ.update(
        HF_HUB_OFFLINE="1", HF_DATASETS_CACHE=str(base / "hf_datasets_build"), HF_HOME=str(base / "hf_home_build")
    )
    try:
        rc = main(
            [
                "build",
                "--num-train",
                "6",
                "--num-validation",
                "2",
                "--num-test",
                "2",
                "--configs",
                "cuda-forward,cpu",
                "--num-shards",
                "2",
                "--on-invalid",
                "error",
                "--out",
                str(out),
                "--overwrite",
            ]
        )
    finally:
        for k, v in saved.items():
            os.environ.pop(k, None) if v is None else os.environ.__setitem__(k, v)
    assert rc == 0
    return out


@pytest.fixture
def copy(folder, tmp_path) -> Path:
    """A private copy of the built folder that a test may corrupt."""
    dst = tmp_path / "copy"
    shutil.copytree(folder, dst)
    return dst
