"""``warp-cuda-ir build --configs real``: the real config through the same shard plan, manifest, card and validate."""

import json
import subprocess
import sys

import pytest

from builder.build_options import BuildOptions, BuildRequest
from builder.schema import features
from builder.sources import build_plan, plan
from tests.dataset.helpers import env_for, leftovers, run

# The first six example modules: three run code at import, one needs torch, two give six kernels (18 rows), both in
# train; the one module of them in test (benchmark_cloth_warp) runs code at import, so test has no row
REAL = ["--real-sources", "examples", "--real-modules", "6"]


def _validate(tmp_path, folder) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "builder.cli", "validate", str(folder)],
        capture_output=True,
        text=True,
        env=env_for(tmp_path),
        cwd=tmp_path,
        timeout=300,
    )


def test_real_shards_partition_the_module_list_whatever_the_engine():
    opts = BuildOptions("real", real_sources="examples", real_modules=6, num_shards=4)
    shards = plan(opts)
    keys = [f"real-train-{i:05d}-of-00004" for i in range(4)] + ["real-test-00000-of-00001"]
    assert [s.key() for s in shards] == keys  # per split: train holds five of the modules, test one
    assert [s.filename() for s in shards][0] == "train-00000-of-00004.parquet"
    assert [m for s in shards for m in s.modules] == [
        m for s in plan(BuildOptions("real", **_six())) for m in s.modules
    ]
    assert len({m for s in shards for m in s.modules}) == 6 and all(s.rows == 0 for s in shards)
    both = build_plan(
        BuildRequest.of(("cpu", "real"), num_train=4, num_validation=1, num_test=1, **_six(), num_shards=4)
    )
    assert [s.config for s in both] == [None] * 6 + ["real"] * 5  # --num-shards 4 applies to both sources
    assert BuildOptions("real", num_train=0, num_validation=0, num_test=0).real_modules == 0  # sizes do not apply


def _six() -> dict:
    return {"real_sources": ("examples",), "real_modules": 6}


@pytest.mark.parametrize("bad", [["--real-sources", "docs"], ["--real-modules", "-1"], ["--real-sources", ""]])
def test_bad_real_options_are_one_line_and_exit_2(tmp_path, bad):
    r = run(tmp_path, "--configs", "real", *bad, "--out", str(tmp_path / "o"))
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "real_" in r.stderr, r.stderr
    assert not (tmp_path / "o").exists()


def test_real_build_loads_and_validates(tmp_path):
    import datasets

    out = tmp_path / "ds"
    r = run(tmp_path, "--configs", "real", *REAL, "--num-shards", "2", "--num-proc", "2", "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert "real: train=18, test=0 (compiled; shipped kernels are never executed)\n" in r.stdout
    summary = next(line for line in r.stderr.splitlines() if line.startswith("warp_cuda_ir real: "))
    assert "modules skipped: example runs code at import (no __main__ guard): 3, needs torch: 1" in summary
    assert "rows left out: none" in summary and "kernels: examples: 6" in summary
    names = sorted(p.name for p in (out / "real").iterdir())
    assert names == ["train-00000-of-00002.parquet", "train-00001-of-00002.parquet"]
    manifest = json.loads((out / "manifest.json").read_text())
    assert [f["path"] for f in manifest["files"] if f["path"].startswith("real/")] == [f"real/{n}" for n in names]
    assert manifest["options"]["configs"] == ["real"] and manifest["options"]["real_modules"] == 6
    assert leftovers(tmp_path) == []

    ds = datasets.load_dataset(str(out), "real", split="train", cache_dir=str(tmp_path / "hf"))
    assert len(ds) == 18 and ds.features == features("real")
    assert all(r["compiled"] and r["id"].startswith("real/train/warp.examples.") for r in ds)
    assert {r["split_group"] for r in ds} == {"in-project"}
    assert "## The `real` config" in (out / "README.md").read_text()

    v = _validate(tmp_path, out)
    assert v.returncode == 0, v.stdout + v.stderr
    assert "PASS real:verification: verify=compile: compiled=100.0%" in v.stdout
    assert "SKIP real:decontamination" in v.stdout


def test_real_beside_a_generated_config_is_decontaminated(tmp_path):
    out = tmp_path / "ds"
    sizes = ["--num-train", "6", "--num-validation", "2", "--num-test", "2"]
    # warp-nn: a held-out package, all in test (the split decontamination keeps clean)
    held_out = ["--real-sources", "warp-nn", "--num-shards", "1"]
    r = run(tmp_path, "--configs", "cpu,real", *held_out, *sizes, "--verify", "none", "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("cpu: train=") and "real: test=78\n" in r.stdout
    assert sorted(p.name for p in out.iterdir() if p.is_dir()) == ["cpu", "real"]
    v = _validate(tmp_path, out)
    assert v.returncode == 0, v.stdout + v.stderr
    line = next(x for x in v.stdout.splitlines() if "real:decontamination" in x)
    assert line.startswith("  PASS")
    # 10 programs and the 31 sibling kernels their modules hold, each compared alone (siblings.units)
    assert "17 distinct real sources vs 41 distinct training ones (cpu): 0 equal sources" in line


def test_resume_reuses_finished_real_shards_and_their_summary(tmp_path):
    """A real shard that stops the build leaves the finished one for --resume; its counts still reach the summary."""
    faults = tmp_path / "faults"
    faults.mkdir()
    (faults / "bug@real-train-00001-of-00002").touch()
    out = tmp_path / "ds"
    argv = ["--configs", "real", *REAL, "--num-shards", "2", "--verify", "none", "--out", str(out), "--resume"]
    first = run(tmp_path, *argv, WARP_CUDA_IR_FAULTS=str(faults))
    assert first.returncode == 1 and "injected fault" in first.stderr
    (staging,) = tmp_path.glob(".ds.partial-*")
    assert "real-train-00000-of-00002.json" in sorted(p.name for p in (staging / ".done").iterdir())
    second = run(tmp_path, *argv, WARP_CUDA_IR_FAULTS=str(faults))
    assert second.returncode == 0, second.stderr
    assert "reused)" in second.stderr and "real: train=18, test=0\n" in second.stdout
    summary = next(line for line in second.stderr.splitlines() if line.startswith("warp_cuda_ir real: "))
    assert "kernels: examples: 6" in summary and "needs torch: 1" in summary
    assert not list(tmp_path.glob(".ds.*"))
