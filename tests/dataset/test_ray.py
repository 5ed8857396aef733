"""``--engine ray`` on a real two-node local Ray cluster: the same bytes as the local engine, through faults.

The cluster and every build run in subprocesses: a process that has loaded Ray keeps its threads, and the
datasets builder tests fork worker processes later in the same session.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.dataset.helpers import env_for, run

pytest.importorskip("ray")

BUILD = ["--num-train", "6", "--num-validation", "2", "--num-test", "2", "--rows-per-shard", "3", "--verify", "none"]
CONFIGS = ["--configs", "cpu,cuda-forward"]
CLUSTER = """
import sys
import tempfile
from ray.cluster_utils import Cluster
c = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
c.add_node(num_cpus=1)
c.wait_for_nodes()
print(c.address, flush=True)
sys.stdin.read()
c.shutdown()
"""


@pytest.fixture(scope="module")
def faults(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("faults")


@pytest.fixture(scope="module")
def cluster(faults, tmp_path_factory):
    """Two nodes of one CPU each; their workers inherit the fault directory from the environment."""
    home = tmp_path_factory.mktemp("cluster")
    # Ray's session files (sockets, logs) in a short folder of their own, removed afterwards: a socket path must
    # stay under 108 bytes, which pytest's folders can exceed, and Ray's default /tmp/ray would outlive the tests
    ray_tmp = tempfile.mkdtemp(prefix="wcir_ray_", dir="/tmp" if os.path.isdir("/tmp") else None)
    env = env_for(home, WARP_CUDA_IR_FAULTS=str(faults), RAY_TMPDIR=ray_tmp)
    env.pop("TMPDIR")
    proc = subprocess.Popen(
        [sys.executable, "-c", CLUSTER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env, cwd=home
    )
    try:
        address = proc.stdout.readline().strip()
        assert address, "the cluster did not start"
        yield address
    finally:
        proc.stdin.close()
        proc.wait(timeout=120)
        shutil.rmtree(ray_tmp, ignore_errors=True)


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> Path:
    """The local engine's folder, built once."""
    home = tmp_path_factory.mktemp("local")
    r = run(home, "--out", str(home / "o"), *BUILD, *CONFIGS)
    assert r.returncode == 0, r.stderr
    return home / "o"


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _same(a: Path, b: Path) -> None:
    fa, fb = _files(a), _files(b)
    assert sorted(fa) == sorted(fb)
    assert [k for k in fa if fa[k] != fb[k]] == []


def _ray_build(address: str, tmp_path: Path, *extra: str, configs=CONFIGS):
    out = str(tmp_path / "o")
    return run(tmp_path, "--engine", "ray", "--address", address, "--out", out, *BUILD, *configs, *extra)


def _hidden(tmp_path: Path) -> list[str]:
    return [p.name for p in tmp_path.rglob("*") if p.name.startswith(".")]


def test_ray_build_is_byte_identical_to_the_local_one(cluster, reference, tmp_path):
    r = _ray_build(cluster, tmp_path)
    assert r.returncode == 0, r.stderr
    _same(reference, tmp_path / "o")
    assert "engine ray" in r.stderr
    assert _hidden(tmp_path) == []


def test_killed_worker_and_transient_error_are_retried_to_the_same_bytes(cluster, reference, faults, tmp_path):
    kill, transient = faults / "kill@train-00001-of-00002", faults / "transient@validation-00000-of-00001"
    kill.touch()
    transient.touch()
    r = _ray_build(cluster, tmp_path)
    assert r.returncode == 0, r.stderr
    assert not kill.exists() and not transient.exists()  # both faults fired (their first attempts took them)
    _same(reference, tmp_path / "o")
    assert _hidden(tmp_path) == []  # no temporary, partial or duplicate file


def test_resume_after_a_stopped_build_reuses_finished_shards(cluster, reference, faults, tmp_path):
    """A local --resume build stops at a bug in one shard; a Ray --resume run finishes it from where it was."""
    (faults / "bug@test-00000-of-00001").touch()
    first = run(tmp_path, "--out", str(tmp_path / "o"), *BUILD, *CONFIGS, "--resume", WARP_CUDA_IR_FAULTS=str(faults))
    assert first.returncode == 1 and "injected fault" in first.stderr, first.stderr
    (staging,) = tmp_path.glob(".o.partial-*")
    done = sorted(p.name for p in (staging / ".done").iterdir())
    assert done == ["train-00000-of-00002.json", "train-00001-of-00002.json", "validation-00000-of-00001.json"]
    again = _ray_build(cluster, tmp_path, "--resume")
    assert again.returncode == 0, again.stderr
    assert "(3 reused)" in again.stderr
    _same(reference, tmp_path / "o")
    assert not list(tmp_path.glob(".o.*"))


def test_gpu_verified_asks_the_cluster_for_a_gpu(cluster, tmp_path):
    """Its shards are scheduled with num_gpus=1; a cluster without GPUs is told apart at once, not waited on."""
    r = _ray_build(cluster, tmp_path, configs=["--configs", "gpu-verified"])
    assert r.returncode == 2, r.stderr
    last = r.stderr.strip().splitlines()[-1]
    assert last.startswith("warp-cuda-ir: error: config 'gpu-verified' on this Ray cluster requires a CUDA GPU")
    assert not (tmp_path / "o").exists() and not list(tmp_path.glob(".o.*"))


def test_sigterm_stops_a_ray_build_and_keeps_only_its_finished_shards(cluster, tmp_path):
    """The driver cancels its tasks; workers killed mid-shard kept their scratch in the build's work directory,
    which goes; the finished shards stay for the same command to continue."""
    import signal
    import time

    from tests.dataset.helpers import start, stopped_cleanly

    args = ["--num-train", "40", "--num-validation", "0", "--num-test", "0", "--configs", "cpu", "--verify", "compile"]
    proc = start(
        tmp_path, "--engine", "ray", "--address", cluster, "--out", str(tmp_path / "o"), *args, "--rows-per-shard", "4"
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None and not list(tmp_path.glob(".o.partial-*/.done/*")):
        time.sleep(0.1)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 143, err
    time.sleep(2)  # cancelled workers are gone before the driver removes the folders they wrote into
    stopped_cleanly(err, signal.SIGTERM, tmp_path)  # what finished is kept (on a slow machine, maybe nothing)


def test_real_config_on_ray_is_byte_identical_to_the_local_build(cluster, tmp_path):
    """Real shards (runs of the shipped module list) are Ray tasks too; the summary comes back with the records."""
    real = ["--configs", "real", "--real-sources", "examples", "--real-modules", "6", "--num-shards", "2"]
    real += ["--verify", "none"]
    local, out = tmp_path / "local", tmp_path / "ray"
    r_local = run(tmp_path, "--out", str(local), *real)
    assert r_local.returncode == 0, r_local.stderr
    r_ray = run(tmp_path, "--engine", "ray", "--address", cluster, "--out", str(out), *real)
    assert r_ray.returncode == 0, r_ray.stderr
    _same(local, out)
    assert sorted(p.name for p in (out / "real").iterdir()) == [  # the one test module runs code at import
        "train-00000-of-00002.parquet",
        "train-00001-of-00002.parquet",
    ]
    # the counts, without the worker time it opens with: seconds differ between any two runs (a loaded machine
    # took 12 s to import what Ray's worker imported in under half a second)
    summaries = [
        re.sub(r"worker time: [^;]*; ", "", line)
        for r in (r_local, r_ray)
        for line in r.stderr.splitlines()
        if line.startswith("warp_cuda_ir real: ")
    ]
    assert len(summaries) == 2 and summaries[0] == summaries[1] and "kernels: examples: 6" in summaries[0]
