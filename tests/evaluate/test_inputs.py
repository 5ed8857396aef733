"""Bad input to ``evaluate`` exits 2 with one line naming what is wrong, before any child runs."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq

from builder import GENERATOR_VERSION
from builder.cli import main


def _rows(folder, config="cpu", split="test"):
    return [r for p in sorted((folder / config).glob(f"{split}-*.parquet")) for r in pq.read_table(p).to_pylist()]


def _run(folder, tmp_path, text: str) -> int:
    pred = tmp_path / "pred.jsonl"
    pred.write_text(text)
    argv = ["evaluate", "--data", str(folder), "--config", "cpu", "--split", "test", "--predictions", str(pred)]
    return main([*argv, "--out", str(tmp_path / "report.json")])


def test_unknown_id_exits_2(folder, tmp_path, capsys):
    row = _rows(folder)[0]
    text = json.dumps({"id": row["id"], "ir": row["ir"]}) + "\n" + json.dumps({"id": "cpu/test/0/999", "ir": "x"})
    assert _run(folder, tmp_path, text + "\n") == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "line 2" in err and "'cpu/test/0/999'" in err
    assert not (tmp_path / "report.json").exists()


def test_malformed_line_exits_2_naming_it(folder, tmp_path, capsys):
    row = _rows(folder)[0]
    good = json.dumps({"id": row["id"], "ir": row["ir"]})
    assert _run(folder, tmp_path, f"{good}\n\n{good}\n{{not json\n") == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "pred.jsonl line 4: not valid JSON" in err


def test_missing_field_exits_2(folder, tmp_path, capsys):
    row = _rows(folder)[0]
    assert _run(folder, tmp_path, json.dumps({"id": row["id"], "prediction": "x"}) + "\n") == 2
    assert "line 1: give exactly one of 'ir' and 'python'" in capsys.readouterr().err
    assert _run(folder, tmp_path, json.dumps({"id": row["id"], "python": 3}) + "\n") == 2
    assert "line 1: field 'python' must be a string" in capsys.readouterr().err


def test_other_generator_version_is_refused(folder, tmp_path, capsys):
    rows = _rows(folder)
    data = tmp_path / "data"
    (data / "cpu").mkdir(parents=True)
    table = pq.read_table(sorted((folder / "cpu").glob("test-*.parquet"))[0])
    old = pa.array(["0.0.1"] * table.num_rows)
    table = table.set_column(table.schema.get_field_index("generator_version"), "generator_version", old)
    pq.write_table(table, data / "cpu" / "test-00000-of-00001.parquet")
    pred = tmp_path / "pred.jsonl"
    pred.write_text(json.dumps({"id": table.column("id")[0].as_py(), "ir": rows[0]["ir"]}) + "\n")
    argv = ["evaluate", "--data", str(data), "--config", "cpu", "--split", "test", "--predictions", str(pred)]
    assert main([*argv, "--out", str(tmp_path / "r.json")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "0.0.1" in err and GENERATOR_VERSION in err


def test_missing_split_exits_2(folder, tmp_path, capsys):
    row = _rows(folder)[0]
    pred = tmp_path / "pred.jsonl"
    pred.write_text(json.dumps({"id": row["id"], "ir": row["ir"]}) + "\n")
    argv = ["evaluate", "--data", str(tmp_path), "--config", "cpu", "--split", "test", "--predictions", str(pred)]
    assert main([*argv, "--out", str(tmp_path / "r.json")]) == 2
    assert "no cpu/test-*.parquet shards" in capsys.readouterr().err


def test_reference_that_cannot_run_exits_1(folder, tmp_path, capsys):
    """A timeout too short for the row's own reference is the harness failing, not the prediction: the preflight
    stops the evaluation before any prediction runs, in one line, with no report of zeros."""
    row = _rows(folder)[0]
    pred = tmp_path / "pred.jsonl"
    pred.write_text(json.dumps({"id": row["id"], "ir": row["ir"]}) + "\n")
    argv = ["evaluate", "--data", str(folder), "--config", "cpu", "--split", "test", "--predictions", str(pred)]
    assert main([*argv, "--out", str(tmp_path / "r.json"), "--timeout", "0.2"]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert err.startswith("warp-cuda-ir: error: the evaluation harness cannot run on this machine: ")
    assert f"the reference of row {row['id']!r} failed (timeout: killed after 0.2 s)" in err
    assert not (tmp_path / "r.json").exists()


def test_unknown_config_is_refused_in_one_line(tmp_path, capsys):
    argv = ["evaluate", "--data", str(tmp_path), "--config", "cpu-backward", "--split", "test"]
    assert main([*argv, "--predictions", str(tmp_path / "p.jsonl"), "--out", str(tmp_path / "r.json")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "unknown config 'cpu-backward'; valid: " in err and "real" in err


def test_bad_trial_count_exits_2(tmp_path, capsys):
    argv = ["evaluate", "--data", str(tmp_path), "--config", "cpu", "--split", "test", "--trials", "0"]
    assert main([*argv, "--predictions", str(tmp_path / "p.jsonl"), "--out", str(tmp_path / "r.json")]) == 2
    assert "--trials must be a positive integer, got 0" in capsys.readouterr().err
