"""A checkpoint of another format (its token ids mean other text) is refused by predict, heldout and --resume."""

from __future__ import annotations

import json

import pytest

from builder.cli import main
from builder.errors import ConfigError
from builder.train import checkpoint, heldout

pytestmark = pytest.mark.slow  # builds the tiny folder (once a session)


def _format_1_run(run):
    """What the line-level trainer left: run.json and train.json without a "format" key."""
    folder = run / "checkpoints" / "step-000002"
    folder.mkdir(parents=True)
    (folder / "trainer.pt").write_bytes(b"")
    (folder / "train.json").write_text(json.dumps({"options": {"config": "cpu"}, "step": 2}))
    (run / "run.json").write_text(json.dumps({"options": {"config": "cpu"}}))
    return folder


def test_an_older_format_is_refused_with_the_reason(tiny, tmp_path, capsys):
    folder = _format_1_run(tmp_path / "run")
    with pytest.raises(ConfigError, match=r"checkpoint format 1; this trainer reads format 2"):
        checkpoint.read_info(folder)
    with pytest.raises(ConfigError, match="train a new run"):
        heldout.score(tmp_path / "run", str(tiny), "cpu", "test")
    where = ["--data", str(tiny), "--config", "cpu", "--split", "test", "--out", str(tmp_path / "p.jsonl")]
    assert main(["predict", "--checkpoint", str(tmp_path / "run"), *where]) == 2
    assert "checkpoint format 1" in capsys.readouterr().err
    assert main(["train", "--data", str(tiny), "--out", str(tmp_path / "run"), "--resume"]) == 2
    assert "checkpoint format 1" in capsys.readouterr().err


def test_a_checkpoint_records_its_format(tmp_path):
    assert checkpoint.check_format({"format": checkpoint.FORMAT}, tmp_path) == {"format": checkpoint.FORMAT}
