"""Tests write only into temporary directories: the test suite's own redirection of every cache is tested here.

A test that builds through the ``datasets`` cache and loads a folder runs in a child pytest whose HOME is an
empty temporary directory and whose environment names no cache; afterwards that HOME and the child's TMPDIR
must be as empty as before.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

CHILD_TEST = """
import datasets

from builder.cli import main


def test_warp_work_after_a_build_recreates_nothing(tmp_path):
    # first in the process: the build initialises Warp with its cache in the build's work folder, then removes it
    argv = ["build", "--configs", "cpu", "--num-train", "2", "--num-validation", "0", "--num-test", "0"]
    assert main([*argv, "--verify", "none", "--out", str(tmp_path / "first")]) == 0
    from builder.grammar.policy import CATEGORIES
    from builder.grammar.sample import sample
    from builder.warp_backend import codegen, verify

    program = sample(0, "train", 0, CATEGORIES).program
    tu = codegen.emit("after", program.source, "after_build", ("cpu",))["cpu"].tu
    with verify.cpu_loaded([verify.Item("after", program, tu, 1)], "after"):
        pass


def test_build_and_load(tmp_path):
    from warp_cuda_ir import WarpCudaIR

    b = WarpCudaIR(config_name="cpu", num_train=2, num_validation=0, num_test=0, verify="none")
    b.download_and_prepare()  # no cache_dir: the datasets default cache
    assert len(b.as_dataset(split="train")) == 2
    out = tmp_path / "warp_cuda_ir"
    argv = ["build", "--configs", "cpu", "--num-train", "2", "--num-validation", "1", "--num-test", "1"]
    assert main([*argv, "--verify", "none", "--num-shards", "1", "--out", str(out)]) == 0
    assert len(datasets.load_dataset(str(out), "cpu", split="train")) == 2
"""

CACHE_VARS = (
    "HF_HOME",
    "HF_DATASETS_CACHE",
    "HF_HUB_CACHE",
    "HF_MODULES_CACHE",
    "XDG_CACHE_HOME",
    "XDG_STATE_HOME",
    "MPLCONFIGDIR",
)


@pytest.mark.slow
def test_suite_writes_nothing_under_home(tmp_path):
    home, tmp, base = tmp_path / "home", tmp_path / "tmp", tmp_path / "basetemp"
    for d in (home, tmp):
        d.mkdir()
    (tmp_path / "test_child.py").write_text(CHILD_TEST)
    env = {k: v for k, v in os.environ.items() if k not in CACHE_VARS and not k.startswith("WARP_CUDA_IR")}
    env.update(HOME=str(home), TMPDIR=str(tmp))
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "tests.conftest", "-p", "no:cacheprovider"]
    cmd += ["--rootdir", str(tmp_path), "--basetemp", str(base), str(tmp_path / "test_child.py")]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, env=env, timeout=500)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert sorted(str(p.relative_to(home)) for p in home.rglob("*")) == []
    assert sorted(str(p.relative_to(tmp)) for p in tmp.rglob("*")) == []


def test_library_caches_point_into_tmp(tmp_path):
    import datasets.config
    import huggingface_hub.constants as hub

    for path in (
        datasets.config.HF_DATASETS_CACHE,
        datasets.config.HF_MODULES_CACHE,
        datasets.config.DOWNLOADED_DATASETS_PATH,
        hub.HF_HUB_CACHE,
        hub.HF_TOKEN_PATH,
        os.environ["MPLCONFIGDIR"],
        os.environ["XDG_CACHE_HOME"],
        os.environ["XDG_STATE_HOME"],
    ):
        assert Path(path).is_relative_to(tmp_path), path
