"""scripts/validate.py passes a freshly built folder and fails copies corrupted on purpose."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import validate as V  # noqa: E402


def _check(report, name, config="cuda-forward"):
    return next(c for c in report.checks if c.name == name and c.config in (config, ""))


def _rewrite(path: Path, fn) -> None:
    t = pq.read_table(path)
    pq.write_table(fn(t), path)


def test_validate_passes_on_fresh_build(folder, tmp_path, capsys):
    out = tmp_path / "report.json"
    rc = V.main([str(folder), "--json", str(out)])
    text = capsys.readouterr().out
    assert rc == 0, text
    report = json.loads(out.read_text())
    assert report["ok"] and report["configs"]["cuda-forward"] == {"train": 6, "validation": 2, "test": 2}
    names = {c["name"] for c in report["checks"]}
    assert {
        "schema",
        "unique_ids",
        "ir_function",
        "duplicates_across_splits",
        "near_duplicates_across_splits",
        "category_balance",
        "builtin_coverage",
        "verification",
        "determinism",
        "card",
    } <= names
    assert "OK:" in text


def test_config_filter_and_bad_arguments(folder, tmp_path, capsys):
    report = V.validate(folder, config="cpu", determinism_sample=2)
    assert report.ok and list(report.configs) == ["cpu"]
    assert V.main([str(tmp_path / "missing")]) == 2
    assert V.main([str(folder), "--config", "nope"]) == 2
    assert V.main([str(folder), "--config", "cuda-backward"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 3 and all(line.startswith("validate: error:") for line in err)


def test_duplicated_row_fails(copy):
    path = copy / "cuda-forward" / "train-00000-of-00002.parquet"
    _rewrite(path, lambda t: pa.concat_tables([t, t.slice(0, 1)]))
    report = V.validate(copy, determinism_sample=0)
    assert not report.ok
    check = _check(report, "unique_ids")
    assert check.status == "fail" and check.offenders == ["cuda-forward/train/0/0"]
    assert _check(report, "card").status == "fail"  # the card's split counts no longer match


def test_row_moved_across_splits_fails(copy):
    train = copy / "cpu" / "train-00000-of-00002.parquet"
    row = pq.read_table(train).slice(0, 1)
    val = copy / "cpu" / "validation-00000-of-00002.parquet"
    _rewrite(val, lambda t: pa.concat_tables([t, row.cast(t.schema)]))
    report = V.validate(copy, determinism_sample=0)
    cross = _check(report, "duplicates_across_splits", "cpu")
    assert cross.status == "fail" and cross.count >= 1
    assert _check(report, "placement", "cpu").status == "fail"


def test_edited_ir_fails(copy):
    path = copy / "cuda-forward" / "test-00000-of-00002.parquet"

    def edit(t):
        ir = t.column("ir").to_pylist()
        ir[0] = ir[0].replace("{", "{\n    // edited", 1)
        return t.set_column(t.schema.get_field_index("ir"), "ir", pa.array(ir, pa.string()))

    _rewrite(path, edit)
    report = V.validate(copy, config="cuda-forward", determinism_sample=50)
    assert _check(report, "hashes").status == "fail"
    det = _check(report, "determinism")
    assert det.status == "fail" and "ir" in det.message


def test_renamed_ir_function_and_extra_column_fail(copy):
    path = copy / "cuda-forward" / "validation-00000-of-00002.parquet"

    def edit(t):
        ir = [s.replace("_cuda_kernel_forward", "_kernel") for s in t.column("ir").to_pylist()]
        t = t.set_column(t.schema.get_field_index("ir"), "ir", pa.array(ir, pa.string()))
        return t.append_column("extra", pa.array([1] * t.num_rows))

    _rewrite(path, edit)
    report = V.validate(copy, config="cuda-forward", determinism_sample=0)
    schema = _check(report, "schema")
    assert schema.status == "fail" and "extra" in schema.message


def test_broken_card_fails(copy, capsys):
    readme = copy / "README.md"
    readme.write_text(readme.read_text().replace("dataset_info:", "dataset_info: [unclosed", 1))
    assert V.main([str(copy), "--determinism-sample", "0"]) == 1
    out = capsys.readouterr().out
    assert "FAIL card" in out and "does not parse" in out
    readme.unlink()
    report = V.validate(copy, determinism_sample=0)
    assert _check(report, "card").status == "fail" and "missing" in _check(report, "card").message
