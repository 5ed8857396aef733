"""``--engine ray`` on a real two-node local Ray cluster: the same bytes as the local engine, through faults."""

import os
from pathlib import Path

import pytest

ray = pytest.importorskip("ray")
cluster_utils = pytest.importorskip("ray.cluster_utils")

from builder.cli import main  # noqa: E402

BUILD = ["--num-train", "6", "--num-validation", "2", "--num-test", "2", "--rows-per-shard", "3", "--verify", "none"]
CONFIGS = ["--configs", "cpu,cuda-forward"]


@pytest.fixture(scope="module")
def faults(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("faults")


@pytest.fixture(scope="module")
def cluster(faults):
    """Two nodes of one CPU each; workers inherit the fault directory from the environment they start in."""
    saved = os.environ.get("WARP_CUDA_IR_FAULTS")
    os.environ["WARP_CUDA_IR_FAULTS"] = str(faults)
    c = cluster_utils.Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    c.add_node(num_cpus=1)
    c.wait_for_nodes()
    yield c
    if ray.is_initialized():
        ray.shutdown()
    c.shutdown()
    if saved is None:
        os.environ.pop("WARP_CUDA_IR_FAULTS", None)
    else:
        os.environ["WARP_CUDA_IR_FAULTS"] = saved


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> Path:
    """The local engine's folder, built once."""
    out = tmp_path_factory.mktemp("local") / "o"
    assert main(["build", "--out", str(out), *BUILD, *CONFIGS]) == 0
    return out


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _same(a: Path, b: Path) -> None:
    fa, fb = _files(a), _files(b)
    assert sorted(fa) == sorted(fb)
    assert [k for k in fa if fa[k] != fb[k]] == []


def _ray_build(cluster, out: Path, *extra: str) -> int:
    return main(["build", "--engine", "ray", "--address", cluster.address, "--out", str(out), *BUILD, *CONFIGS, *extra])


def test_ray_build_is_byte_identical_to_the_local_one(cluster, reference, tmp_path, capsys):
    out = tmp_path / "o"
    assert _ray_build(cluster, out) == 0
    _same(reference, out)
    assert "engine ray" in capsys.readouterr().err
    assert (out / "manifest.json").exists() and not (out / ".done").exists()


def test_killed_worker_and_transient_error_are_retried_to_the_same_bytes(cluster, reference, faults, tmp_path):
    kill, transient = faults / "kill@train-00001-of-00002", faults / "transient@validation-00000-of-00001"
    kill.touch()
    transient.touch()
    out = tmp_path / "o"
    assert _ray_build(cluster, out) == 0
    assert not kill.exists() and not transient.exists()  # both faults fired (their first attempts took them)
    _same(reference, out)
    assert [p for p in tmp_path.rglob("*") if p.name.startswith(".")] == []  # no temporary or partial file


def test_resume_after_a_stopped_build_reuses_finished_shards(cluster, reference, faults, tmp_path, capsys):
    """A local --resume build stops at a bug in one shard; a Ray --resume run finishes it from where it was."""
    (faults / "bug@test-00000-of-00001").touch()
    out = tmp_path / "o"
    assert main(["build", "--out", str(out), *BUILD, *CONFIGS, "--resume"]) == 1
    assert "injected fault" in capsys.readouterr().err
    (staging,) = tmp_path.glob(".o.partial-*")
    done = sorted(p.name for p in (staging / ".done").iterdir())
    assert done == ["train-00000-of-00002.json", "train-00001-of-00002.json", "validation-00000-of-00001.json"]
    assert _ray_build(cluster, out, "--resume") == 0
    assert "(3 reused)" in capsys.readouterr().err
    _same(reference, out)
    assert not list(tmp_path.glob(".o.*"))


def test_real_config_on_ray_is_byte_identical_to_the_local_build(cluster, tmp_path, capsys):
    """Real shards (runs of the shipped module list) are Ray tasks too; the summary comes back with the records."""
    real = ["--configs", "real", "--real-sources", "examples", "--real-modules", "6", "--num-shards", "2"]
    real += ["--verify", "none"]
    local, out = tmp_path / "local", tmp_path / "ray"
    assert main(["build", "--out", str(local), *real]) == 0
    assert main(["build", "--engine", "ray", "--address", cluster.address, "--out", str(out), *real]) == 0
    _same(local, out)
    assert sorted(p.name for p in (out / "real").iterdir()) == [
        "test-00000-of-00002.parquet",
        "test-00001-of-00002.parquet",
    ]
    summaries = [line for line in capsys.readouterr().err.splitlines() if line.startswith("warp_cuda_ir real: ")]
    assert len(summaries) == 2 and summaries[0] == summaries[1] and "kernels: examples: 6" in summaries[0]
