"""build -> train -> stop -> resume -> predict -> evaluate through the command line, as a user runs it.

It asserts that the pipeline works end to end on the CPU, not a score: a model this small writes noise.
"""

from __future__ import annotations

import json

import pytest

from builder.cli import main
from builder.train import checkpoint, heldout

pytestmark = pytest.mark.slow  # builds the tiny folder (once a session) and streams it

TINY = ["--layers", "1", "--hidden", "32", "--heads", "2", "--vocab-size", "320", "--max-length", "160"]
TINY += ["--max-prompt", "48", "--batch-size", "4", "--warmup-steps", "2", "--log-every", "2", "--threads", "1"]


def test_train_resume_predict_evaluate(tiny, tmp_path, capsys):
    run, pred, report = tmp_path / "run", tmp_path / "pred.jsonl", tmp_path / "report.json"
    train = ["train", "--data", str(tiny), "--out", str(run), "--save-every", "2", "--buffer-size", "8", *TINY]
    assert main([*train, "--max-steps", "4"]) == 0
    assert main([*train, "--max-steps", "4"]) == 2  # the run exists: only --resume continues it
    assert "pass --resume" in capsys.readouterr().err
    assert main([*train, "--max-steps", "6", "--resume"]) == 0
    assert [r["step"] for r in checkpoint.read_log(run)] == [2, 4, 6]
    assert [p.name for p in checkpoint.folders(run)] == ["step-000004", "step-000006"]  # --keep 2
    held = heldout.score(run, str(tiny), "cpu", "test", limit=3)  # a context of 160 tokens: no row fits whole
    assert (held["rows"], held["scored"], held["left_out"]) == (3, 0, 3)
    info = json.loads((run / "run.json").read_text())
    assert info["parameters"] > 0 and info["tokens_per_row"]["ir"]["rows"] == 40

    predict = ["predict", "--checkpoint", str(run), "--data", str(tiny), "--config", "cpu", "--split", "test"]
    sampled = ["--samples", "2", "--temperature", "1.0", "--max-new-tokens", "16", "--limit", "2", "--threads", "1"]
    assert main([*predict, "--out", str(pred), *sampled]) == 0
    lines = [json.loads(line) for line in pred.read_text().splitlines()]
    assert [p["id"] for p in lines] == ["cpu/test/0/0"] * 2 + ["cpu/test/0/1"] * 2
    first = pred.read_bytes()
    assert main([*predict, "--out", str(pred), *sampled]) == 0
    assert pred.read_bytes() == first  # seeded sampling: the same bytes

    evaluate = ["evaluate", "--data", str(tiny), "--config", "cpu", "--split", "test", "--num-proc", "2"]
    assert main([*evaluate, "--predictions", str(pred), "--out", str(report)]) == 0
    scored = json.loads(report.read_text())
    assert scored["predictions"] == 4 and scored["rows"] == 2


def test_bad_arguments_exit_2_with_one_line(tiny, tmp_path, capsys):
    predict = ["predict", "--checkpoint", str(tmp_path), "--data", str(tiny), "--config", "cpu", "--split", "test"]
    assert main([*predict, "--out", str(tmp_path / "p.jsonl"), "--samples", "3"]) == 2
    assert "greedy decoding" in capsys.readouterr().err
    assert main([*predict, "--out", str(tmp_path / "p.jsonl")]) == 2
    assert "neither a checkpoint nor a run folder" in capsys.readouterr().err
    assert main(["train", "--data", str(tiny), "--out", str(tmp_path / "r"), "--heads", "3"]) == 2
    assert not (tmp_path / "r").exists() and not list(tmp_path.glob("*.jsonl"))
