"""``warp-cuda-ir validate`` passes a freshly built folder and fails copies corrupted on purpose."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from builder.cli import main
from builder.validate import validate

pytestmark = pytest.mark.slow  # every test here reads the session's built folder

ROOT = Path(__file__).resolve().parents[2]


def _check(report, name, config="cuda-forward"):
    return next(c for c in report.checks if c.name == name and c.config in (config, ""))


def _rewrite(path: Path, fn) -> None:
    t = pq.read_table(path)
    pq.write_table(fn(t), path)


def _cli(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "builder.cli", *args], capture_output=True, text=True, cwd=cwd, timeout=300
    )


def test_validate_passes_on_fresh_build(folder, tmp_path, capsys):
    out = tmp_path / "report.json"
    rc = main(["validate", str(folder), "--json", str(out)])
    text = capsys.readouterr().out
    assert rc == 0, text
    report = json.loads(out.read_text())
    assert report["ok"] and report["configs"]["cuda-forward"] == {"train": 6, "validation": 2, "test": 2}
    names = {c["name"] for c in report["checks"]}
    assert {
        "shards",
        "schema",
        "non_empty",
        "placement",
        "unique_ids",
        "ir_function",
        "hashes",
        "duplicates_within_split",
        "duplicates_across_splits",
        "near_duplicates_across_splits",
        "category_balance",
        "builtin_coverage",
        "verification",
        "liveness",
        "determinism",
        "fidelity",
        "card",
        "datasets_load",
    } <= names
    assert all(c["status"] in ("pass", "info") for c in report["checks"])
    assert "OK:" in text


def test_config_filter_and_bad_arguments(folder, tmp_path, capsys):
    report = validate(folder, config="cpu", fidelity_sample=2)
    assert report.ok and list(report.configs) == ["cpu"]
    assert main(["validate", str(tmp_path / "missing")]) == 2
    assert main(["validate", str(folder), "--config", "nope"]) == 2
    assert main(["validate", str(folder), "--config", "cuda-backward"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 3 and all(line.startswith("warp-cuda-ir validate: error:") for line in err)


def test_duplicated_row_fails(copy):
    path = copy / "cuda-forward" / "train-00000-of-00002.parquet"
    _rewrite(path, lambda t: pa.concat_tables([t, t.slice(0, 1)]))
    report = validate(copy, fidelity_sample=0)
    assert not report.ok
    check = _check(report, "unique_ids")
    assert check.status == "fail" and check.offenders == ["cuda-forward/train/0/0"]
    assert _check(report, "card").status == "fail"  # the card's split counts no longer match


def test_row_moved_across_splits_fails(copy):
    train = copy / "cpu" / "train-00000-of-00002.parquet"
    row = pq.read_table(train).slice(0, 1)
    val = copy / "cpu" / "validation-00000-of-00002.parquet"
    _rewrite(val, lambda t: pa.concat_tables([t, row.cast(t.schema)]))
    report = validate(copy, fidelity_sample=0)
    cross = _check(report, "duplicates_across_splits", "cpu")
    assert cross.status == "fail" and cross.count >= 1
    placement = _check(report, "placement", "cpu")
    assert placement.status == "fail" and placement.count == 1 and placement.offenders == ["cpu/train/0/0"]


def test_edited_ir_fails(copy):
    path = copy / "cuda-forward" / "test-00000-of-00002.parquet"

    def edit(t):
        ir = t.column("ir").to_pylist()
        ir[0] = ir[0].replace("{", "{\n    // edited", 1)
        return t.set_column(t.schema.get_field_index("ir"), "ir", pa.array(ir, pa.string()))

    _rewrite(path, edit)
    report = validate(copy, config="cuda-forward", fidelity_sample=0)
    hashes = _check(report, "hashes")
    assert hashes.status == "fail" and hashes.count == 1 and hashes.data["reasons"] == {"ir_sha256": 1}
    det = _check(report, "determinism")
    assert det.status == "fail" and "ir" in det.message


@pytest.mark.parametrize("sampling_seed", [0, 1, 2])
def test_forged_row_with_consistent_hashes_fails_whatever_the_sampling_seed(copy, sampling_seed):
    # a forger who edits the ir and updates its hash, line count, the manifest and the card still fails: every
    # row is regenerated from its (seed, split, index), not a sample
    import hashlib

    path = copy / "cpu" / "train-00001-of-00002.parquet"

    def forge(t):
        rows = t.to_pylist()
        rows[-1]["ir"] = rows[-1]["ir"].replace("{", "{\n    int forged = 0;", 1)
        rows[-1]["ir_sha256"] = hashlib.sha256(rows[-1]["ir"].encode()).hexdigest()
        rows[-1]["ir_lines"] = len(rows[-1]["ir"].splitlines())
        return pa.Table.from_pylist(rows, schema=t.schema)

    _rewrite(path, forge)
    manifest = json.loads((copy / "manifest.json").read_text())
    for entry in manifest["files"]:
        entry["sha256"] = hashlib.sha256((copy / entry["path"]).read_bytes()).hexdigest()
    (copy / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    report = validate(copy, config="cpu", fidelity_sample=0, seed_for_sampling=sampling_seed)
    assert _check(report, "hashes", "cpu").status == "pass" and _check(report, "shards").status == "pass"
    det = _check(report, "determinism")
    assert det.status == "fail" and det.count == 1 and det.message.endswith("ir)")


def test_renamed_ir_function_and_extra_column_fail(copy):
    path = copy / "cuda-forward" / "validation-00000-of-00002.parquet"

    def edit(t):
        ir = [s.replace("_cuda_kernel_forward", "_kernel") for s in t.column("ir").to_pylist()]
        t = t.set_column(t.schema.get_field_index("ir"), "ir", pa.array(ir, pa.string()))
        return t.append_column("extra", pa.array([1] * t.num_rows))

    _rewrite(path, edit)
    report = validate(copy, config="cuda-forward", fidelity_sample=0)
    schema = _check(report, "schema")
    assert schema.status == "fail" and "extra" in schema.message
    assert schema.offenders == ["cuda-forward/validation-00000-of-00002.parquet"]


def test_emptied_source_fails_non_empty(copy):
    path = copy / "cpu" / "test-00001-of-00002.parquet"
    _rewrite(
        path,
        lambda t: t.set_column(
            t.schema.get_field_index("python_source"), "python_source", pa.array([""] * t.num_rows, pa.string())
        ),
    )
    report = validate(copy, config="cpu", fidelity_sample=0)
    check = _check(report, "non_empty", "cpu")
    assert check.status == "fail" and check.count == 1 and check.data["reasons"] == {"empty python_source": 1}


def test_broken_card_fails(copy, capsys):
    readme = copy / "README.md"
    readme.write_text(readme.read_text().replace("dataset_info:", "dataset_info: [unclosed", 1))
    assert main(["validate", str(copy), "--fidelity-sample", "0"]) == 1
    out = capsys.readouterr().out
    assert "FAIL card" in out and "does not parse" in out
    readme.unlink()
    report = validate(copy, fidelity_sample=0)
    assert _check(report, "card").status == "fail" and "missing" in _check(report, "card").message


def test_truncated_shard_is_one_line_naming_it_and_the_command_that_repairs_it(folder, copy):
    shard = copy / "cpu" / "train-00001-of-00002.parquet"
    shard.write_bytes(shard.read_bytes()[:300])
    proc = _cli("validate", str(copy), "--fidelity-sample", "0")
    err = proc.stderr.strip().splitlines()
    assert proc.returncode == 1, proc.stderr
    assert len(err) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert "cpu/train-00001-of-00002.parquet" in err[0] and "not a readable Parquet file" in err[0]
    # the advice is the command that rebuilds that shard with the folder's own options: run it, as a user would
    command = err[0].split("rebuild it with `", 1)[1].rstrip("`")
    assert command.startswith("warp-cuda-ir build --configs ") and command.endswith(f"--out {copy} --resume")
    good = (folder / "cpu" / "train-00001-of-00002.parquet").read_bytes()
    repaired = _cli(*shlex.split(command)[1:])
    assert repaired.returncode == 0, repaired.stderr
    assert shard.read_bytes() == good and _cli("validate", str(copy), "--fidelity-sample", "0").returncode == 0


def test_a_shard_datasets_cannot_read_fails_naming_it(copy):
    """A 0-row Parquet file reads fine with pyarrow, but ``datasets.load_dataset`` raises on it: validate must load
    the folder the way a user does."""
    from builder.schema import features

    shard = copy / "cpu" / "validation-00001-of-00002.parquet"
    pq.write_table(pa.Table.from_pylist([], schema=features("cpu").arrow_schema), shard)
    assert pq.read_table(shard).num_rows == 0  # pyarrow has no complaint
    proc = _cli("validate", str(copy), "--fidelity-sample", "0")
    assert proc.returncode == 1, proc.stdout
    line = next(x for x in proc.stdout.splitlines() if "datasets_load" in x)
    assert "FAIL" in line and "cpu/validation-00001-of-00002.parquet: ArrowInvalid" in line, line


def test_deleted_shard_is_named(copy, capsys):
    (copy / "cuda-forward" / "validation-00001-of-00002.parquet").unlink()
    report = validate(copy, fidelity_sample=0)
    shards = _check(report, "shards")
    assert shards.status == "fail" and shards.offenders == ["cuda-forward/validation-00001-of-00002.parquet"]
    assert "missing: cuda-forward/validation-00001-of-00002.parquet" in shards.message


def test_deleted_config_names_every_file(copy, capsys):
    for f in (copy / "cpu").iterdir():
        f.unlink()
    assert main(["validate", str(copy), "--fidelity-sample", "0"]) == 1
    out = capsys.readouterr().out
    shards_line = next(line for line in out.splitlines() if "shards:" in line)
    for split in ("train", "validation", "test"):
        for i in range(2):
            assert f"cpu/{split}-0000{i}-of-00002.parquet" in shards_line
    assert "card lists configs without data: ['cpu']" in out


def test_manifest_names_changed_and_unlisted_shards(copy):
    manifest = json.loads((copy / "manifest.json").read_text())  # the build's own, written last
    assert _check(validate(copy, fidelity_sample=0), "shards").status == "pass"

    shards = sorted(f["path"] for f in manifest["files"] if f["path"].endswith(".parquet"))
    changed = "cuda-forward/train-00001-of-00002.parquet"
    _rewrite(copy / changed, lambda t: t.slice(0, 0))
    manifest["files"] = [f for f in manifest["files"] if f["path"] != shards[0]]
    (copy / "manifest.json").write_text(json.dumps(manifest))
    check = _check(validate(copy, fidelity_sample=0), "shards")
    assert check.status == "fail"
    assert f"shards not in manifest.json: {shards[0]}" in check.message
    assert f"{changed} (sha256)" in check.message


def test_script_by_path_from_another_directory(folder, tmp_path):
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "validate.py"), str(folder), "--fidelity-sample", "0"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert "OK:" in proc.stdout


def test_a_program_with_dead_code_fails_liveness(copy):
    assert _check(validate(copy, fidelity_sample=0), "liveness").status == "pass"
    path = copy / "cuda-forward" / "train-00000-of-00002.parquet"

    def add_dead_local(t):
        sources = t.column("python_source").to_pylist()
        head, sep, tail = sources[0].partition("wp.tid()\n")
        sources[0] = head + sep + "    unused_scale = 2.0 * 3.0\n" + tail
        i = t.schema.get_field_index("python_source")
        return t.set_column(i, "python_source", pa.array(sources, pa.string()))

    _rewrite(path, add_dead_local)
    check = _check(validate(copy, fidelity_sample=0), "liveness")
    assert check.status == "fail" and check.count == 1
    assert "dead assignments 1/" in check.message
