"""``evaluate`` runs wherever Python, Warp and the data live, and says in one line when its harness cannot.

The sandbox hides ``/tmp`` (and the temporary directory) from a prediction; a venv or a ``pip install --target``
there must still be visible, read-only, to the child that loads Warp (the preflight, which stops an evaluation
whose harness cannot run a reference, is tested in ``test_inputs.py``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from builder.evaluate import baselines, mounts
from tests.evaluate.test_evaluate import _rows, _write
from tests.evaluate.test_sandbox import _scrubbed_env


def test_mounts_hide_tmp_and_show_python_paths_read_only(tmp_path, monkeypatch):
    """Parents are mounted before what lies inside them: a package dir under /tmp is bound back read-only after the
    private /tmp, the job directory after the private temporary directory; /tmp itself is never bound back."""
    site, scratch = tmp_path / "site", tmp_path / "scratch"
    site.mkdir()
    scratch.mkdir()
    job = scratch / "warp_cuda_ir_evaluate_x" / "job000000"
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    monkeypatch.setattr(sys, "path", ["/tmp", str(site), *sys.path])
    got = mounts.ordered(job)
    where = {m: n for n, m in enumerate(got)}
    assert where[(mounts.TMPFS, Path("/tmp"))] < where[(mounts.READ_ONLY, site)]
    assert where[(mounts.TMPFS, scratch)] < where[(mounts.WRITABLE, job)]
    assert (mounts.READ_ONLY, Path("/tmp")) not in where
    assert [p for option, p in got if option == mounts.WRITABLE] == [job]


SHOWN = """
import os, sys
from pathlib import Path
from builder.evaluate import enter, isolation
job, site, secret = map(Path, sys.argv[1:4])
holder = isolation.Holder(isolation.command(job))
pid = os.fork()
if pid == 0:
    enter.join(holder.pid, job)
    seen = [(site / "module.py").read_text(), str(secret.exists())]
    try:
        (site / "written").write_text("x")
        seen.append("wrote site")
    except OSError:
        seen.append("site read-only")
    print(" ".join(seen), flush=True)
    os._exit(0)
os.waitpid(pid, 0)
holder.stop()
"""


def test_sandbox_shows_a_python_path_under_tmp_read_only(tmp_path):
    """A PYTHONPATH entry under /tmp is readable in the sandbox and not writable; its neighbours stay hidden."""
    job, site, secret = tmp_path / "job", tmp_path / "site", tmp_path / "secret"
    for d in (job, site):
        d.mkdir()
    (site / "module.py").write_text("visible")
    secret.write_text("token")
    env = {**_scrubbed_env(), "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}
    argv = [sys.executable, "-c", SHOWN, str(job), str(site), str(secret)]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=60, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["visible", "False", "site", "read-only"]
    assert not (site / "written").exists()


def _link_or_copy(src: str, dst: str) -> None:
    try:
        os.link(src, dst)  # Warp's package is ~400 MB; a hard link is a real file under /tmp all the same
    except OSError:
        shutil.copy2(src, dst)


def _install_under(site: Path) -> None:
    """Warp and the builder, as ``pip install --target SITE`` would leave them: plain files, no links out."""
    import warp

    import builder

    for package in (warp, builder):
        src = Path(package.__file__).parent
        shutil.copytree(src, site / src.name, copy_function=_link_or_copy, ignore=shutil.ignore_patterns("__pycache__"))


@pytest.fixture(scope="module")
def site_under_tmp(tmp_path_factory) -> Path:
    site = tmp_path_factory.mktemp("target") / "site"
    assert site.is_relative_to("/tmp") or not Path("/tmp").is_dir()  # pytest's base temp: the case at issue
    _install_under(site)
    return site


@pytest.mark.parametrize("config", ["cpu", "cuda-forward"])
def test_evaluate_with_warp_and_the_builder_under_tmp(folder, site_under_tmp, tmp_path, config):
    """The reference predictions score 1.0 with Warp and the builder on PYTHONPATH under /tmp, a relative --data and
    the evaluator's temporary directory under /tmp too; no Warp driver warning reaches stderr."""
    rows = _rows(folder, config)
    _write(tmp_path / "pred.jsonl", baselines.predictions("reference", rows, []))
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    env = {**os.environ, "PYTHONPATH": str(site_under_tmp), "TMPDIR": str(scratch)}
    probe = "import warp, builder; print(warp.__file__); print(builder.__file__)"
    run = {"capture_output": True, "text": True, "env": env, "cwd": folder.parent}
    imported = subprocess.run([sys.executable, "-c", probe], check=True, **run)
    assert all(Path(p).is_relative_to(site_under_tmp) for p in imported.stdout.split())
    argv = ["evaluate", "--data", folder.name, "--config", config, "--split", "test"]
    argv += ["--predictions", str(tmp_path / "pred.jsonl"), "--out", str(tmp_path / "r.json"), "--timeout", "120"]
    out = subprocess.run([sys.executable, "-m", "builder.cli", *argv], **run)
    assert out.returncode == 0, out.stderr
    assert "CUDA driver" not in out.stderr
    report = json.loads((tmp_path / "r.json").read_text())
    functional = 1.0 if report["functional_evaluated"] else None  # CUDA rows only compile without a GPU
    assert (report["exact_match"], report["compiled"], report["functional"]) == (1.0, 1.0, functional)
    assert report["predictions"] == len(rows)
