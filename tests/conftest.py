"""Shared fixtures, and the rule that tests never write outside temporary directories.

``datasets`` and ``huggingface_hub`` read their cache locations from the environment once, at import, into
module constants; so the environment is redirected here, before anything imports them, into one temporary
directory for the session (removed at exit), and every test then points those constants at its own
``tmp_path``.
"""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path

import hypothesis
import pytest

SESSION_HOME = Path(tempfile.mkdtemp(prefix="warp_cuda_ir_tests_"))
atexit.register(shutil.rmtree, SESSION_HOME, ignore_errors=True)


def cache_env(root: Path) -> dict[str, str]:
    """Every variable that decides where the HF libraries, matplotlib and XDG-aware tools write caches."""
    return {
        "HF_HOME": str(root / "hf_home"),
        "HF_DATASETS_CACHE": str(root / "hf_datasets"),
        "HF_HUB_CACHE": str(root / "hf_home" / "hub"),
        "HF_MODULES_CACHE": str(root / "hf_home" / "modules"),
        "XDG_CACHE_HOME": str(root / "xdg_cache"),
        "XDG_STATE_HOME": str(root / "xdg_state"),  # where a build's log of Warp's own output goes
        "MPLCONFIGDIR": str(root / "matplotlib"),
        "TORCHINDUCTOR_CACHE_DIR": str(root / "torchinductor"),  # torch's default is /tmp/torchinductor_USER
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "HF_HUB_DISABLE_TELEMETRY": "1",
        "HF_DATASETS_DISABLE_PROGRESS_BARS": "1",
    }


os.environ.update(cache_env(SESSION_HOME))
os.environ.pop("HF_TOKEN_PATH", None)

# CI draws the same property-test examples on every run, so a red CI names a bug rather than an unlucky seed;
# a developer's run explores new seeds each time.
hypothesis.settings.register_profile("ci", derandomize=True)
if os.environ.get("CI"):
    hypothesis.settings.load_profile("ci")


def _library_paths(root: Path) -> dict[tuple[str, str], object]:
    """The module constants ``datasets`` and ``huggingface_hub`` computed from the environment at import."""
    env = cache_env(root)
    hub = Path(env["HF_HUB_CACHE"])
    return {
        ("datasets.config", "HF_CACHE_HOME"): env["HF_HOME"],
        ("datasets.config", "HF_DATASETS_CACHE"): Path(env["HF_DATASETS_CACHE"]),
        ("datasets.config", "HF_MODULES_CACHE"): Path(env["HF_MODULES_CACHE"]),
        ("datasets.config", "DOWNLOADED_DATASETS_PATH"): Path(env["HF_DATASETS_CACHE"]) / "downloads",
        ("datasets.config", "EXTRACTED_DATASETS_PATH"): Path(env["HF_DATASETS_CACHE"]) / "downloads" / "extracted",
        ("datasets.config", "HF_HUB_OFFLINE"): True,
        ("datasets.config", "HF_DATASETS_OFFLINE"): True,
        ("huggingface_hub.constants", "HF_HOME"): env["HF_HOME"],
        ("huggingface_hub.constants", "HF_HUB_CACHE"): str(hub),
        ("huggingface_hub.constants", "HF_ASSETS_CACHE"): str(Path(env["HF_HOME"]) / "assets"),
        ("huggingface_hub.constants", "HF_XET_CACHE"): str(Path(env["HF_HOME"]) / "xet"),
        ("huggingface_hub.constants", "HF_TOKEN_PATH"): str(Path(env["HF_HOME"]) / "token"),
        ("huggingface_hub.constants", "HF_STORED_TOKENS_PATH"): str(Path(env["HF_HOME"]) / "stored_tokens"),
    }


@pytest.fixture(autouse=True)
def _private_caches(tmp_path, monkeypatch):
    """Each test's caches live in its own tmp_path, and nothing reaches the network."""
    root = tmp_path / "caches"
    for key, value in cache_env(root).items():
        monkeypatch.setenv(key, value)
    for (module, name), value in _library_paths(root).items():
        if module in sys.modules and hasattr(sys.modules[module], name):
            monkeypatch.setattr(sys.modules[module], name, value)


def has_cuda() -> bool:
    from builder.warp_backend import codegen

    return codegen.cuda_available()


@pytest.fixture(scope="session")
def folder(tmp_path_factory) -> Path:
    """One tiny built folder per session (cuda-forward and cpu, 6/2/2 rows, 2 shards), shared read-only."""
    from builder.cli import main

    out = tmp_path_factory.getbasetemp() / "warp_cuda_ir_fixture"
    argv = ["build", "--num-train", "6", "--num-validation", "2", "--num-test", "2", "--configs", "cuda-forward,cpu"]
    argv += ["--num-shards", "2", "--on-invalid", "error", "--out", str(out), "--overwrite"]
    assert main(argv) == 0
    return out


@pytest.fixture
def copy(folder, tmp_path) -> Path:
    """A private copy of the built folder that a test may corrupt."""
    dst = tmp_path / "copy"
    shutil.copytree(folder, dst)
    return dst


@pytest.fixture(scope="session")
def probe_data(tmp_path_factory) -> str:
    """One folder with a tiny cpu config (24 train, 3 test rows) and real rows of warp-nn (held out: all in test,
    which the transfer probe scores) and warp-jsb (a training package: all in train, which a mix draws from)."""
    from builder.cli import main

    out = tmp_path_factory.mktemp("probe") / "data"
    argv = ["build", "--configs", "cpu,real", "--real-sources", "warp-nn,warp-jsb", "--verify", "none"]
    argv += ["--num-train", "24", "--num-validation", "0", "--num-test", "3", "--rows-per-shard", "12"]
    assert main([*argv, "--out", str(out)]) == 0
    return str(out)
