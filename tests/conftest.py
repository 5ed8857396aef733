import os

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_DISABLE_PROGRESS_BARS", "1")


@pytest.fixture(autouse=True)
def _hf_cache(tmp_path, monkeypatch):
    """Keep every test's datasets cache private and offline."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "hf_datasets"))
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf_home"))


def has_cuda() -> bool:
    from builder import codegen

    return codegen.cuda_available()
