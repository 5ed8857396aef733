"""The package as a user gets it: installed (not editable) into a fresh venv under TMPDIR, away from the repository.

Warp's package lives in that venv too, so its ``warp.so`` is under ``/tmp`` as in a CI runner's throwaway
environment; the other dependencies come from this test's own environment through a ``.pth`` file (the test runs
offline). From there: build a small folder with every config a CPU machine builds (a ``real`` sample and
``standalone`` included), load every config with ``datasets`` in memory and streaming, validate
it, and score the reference predictions of ``cpu`` and ``real``: every rate must be 1.0.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from tests.evaluate.test_where import _link_or_copy as link_or_copy

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = "cuda-forward,cuda-backward,cpu,standalone,real,repair"
SIZES = ["--num-train", "4", "--num-validation", "2", "--num-test", "3"]
# real: warp-nn (held out: its 29 kernels in test, some that functional scores) and warp-jsb (a training package: its
# 5 modules in train)
REAL_SAMPLE = ["--real-sources", "warp-nn,warp-jsb"]

LOAD_EVERY_CONFIG = """
import sys, datasets
folder = sys.argv[1]
for config in datasets.get_dataset_config_names(folder):
    loaded = datasets.load_dataset(folder, config)
    for split, ds in loaded.items():
        assert ds.num_rows > 0, (config, split)
        streamed = iter(datasets.load_dataset(folder, config, split=split, streaming=True))
        assert next(streamed)["id"] == ds[0]["id"], (config, split)
        streamed.close()  # as a script should: not left open, mid-stream, until exit
        print(config, split, ds.num_rows)
"""


def _venv(tmp_path: Path) -> Path:
    """A venv holding this package and warp-lang as installed files; the rest on a ``.pth`` line."""
    venv = tmp_path / "venv"
    # no pip of its own: this environment's pip installs into it (--python), with this environment's setuptools
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=300)
    site = next((venv / "lib").glob("python3*/site-packages"))
    here = Path(sysconfig.get_paths()["purelib"])
    import warp

    warp_dir = Path(warp.__file__).resolve().parent
    shutil.copytree(warp_dir, site / "warp", copy_function=link_or_copy)  # plain files under /tmp, as pip leaves
    for info in warp_dir.parent.glob("warp_lang-*.dist-info"):
        shutil.copytree(info, site / info.name)
    (site / "zz_test_deps.pth").write_text(f"{here}\n")  # after the venv's own packages: its warp wins
    src = tmp_path / "src"  # a copy, so the wheel build writes nothing into the repository
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "warp_cuda_ir.py"):
        shutil.copy2(ROOT / name, src / name)
    for name in ("builder", "dataset_card"):
        shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__"))
    pip = [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "-q", "--no-deps"]
    pip += ["--no-build-isolation"]
    subprocess.run([*pip, "--no-index", str(src)], check=True, timeout=600, capture_output=True)
    return venv


def _run(venv: Path, cwd: Path, *args: str, timeout: float = 900) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env |= {
        "PATH": f"{venv / 'bin'}:{env.get('PATH', '')}",
        "HF_HUB_OFFLINE": "1",
        "HF_HOME": str(cwd / "hf_home"),
        "HF_DATASETS_CACHE": str(cwd / "hf_datasets"),
    }
    return subprocess.run(list(args), capture_output=True, text=True, cwd=cwd, env=env, timeout=timeout)


@pytest.mark.slow
def test_install_build_load_validate_and_score_as_a_user(tmp_path):
    venv = _venv(tmp_path)
    py = str(venv / "bin" / "python")
    where = _run(venv, tmp_path, py, "-c", "import builder, warp; print(builder.__file__); print(warp.__file__)")
    assert where.returncode == 0, where.stderr
    assert all(line.startswith(str(venv)) for line in where.stdout.split()), where.stdout  # not the repository's

    build = _run(venv, tmp_path, "warp-cuda-ir", "build", "--configs", CONFIGS, *SIZES, *REAL_SAMPLE, "--out", "ds")
    assert build.returncode == 0, build.stderr[-2000:]

    load = _run(venv, tmp_path, py, "-c", LOAD_EVERY_CONFIG, "ds")
    assert load.returncode == 0, load.stderr[-2000:]
    assert {line.split()[0] for line in load.stdout.splitlines()} == set(CONFIGS.split(","))

    validate = _run(venv, tmp_path, "warp-cuda-ir", "validate", "ds")
    assert validate.returncode == 0, (validate.stdout + validate.stderr)[-3000:]

    for config in ("cpu", "real"):
        pred = f"{config}.jsonl"
        ref = _run(venv, tmp_path, py, "-m", "builder.evaluate.baselines", "--data", "ds", "--config", config,
                   "--kind", "reference", "--out", pred)  # fmt: skip
        assert ref.returncode == 0, ref.stderr
        out = _run(venv, tmp_path, "warp-cuda-ir", "evaluate", "--data", "ds", "--config", config, "--split",
                   "test", "--predictions", pred, "--out", f"{config}.json")  # fmt: skip
        assert out.returncode == 0, (out.stdout + out.stderr)[-3000:]
        report = json.loads((tmp_path / f"{config}.json").read_text())
        assert report["rows"] > 0 and report["functional_rows"] > 0, report["not_scored"]
        assert (report["exact_match"], report["compiled"], report["functional"]) == (1.0, 1.0, 1.0), out.stdout
