"""A tiny built cpu folder shared by the trainer's tests, and a BPE tokenizer trained on it."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("torch", reason="the train extra is not installed")
pytest.importorskip("transformers", reason="the train extra is not installed")
pytest.importorskip("tokenizers", reason="the train extra is not installed")

TRAIN_ROWS = 40


@pytest.fixture(scope="session")
def tiny(tmp_path_factory) -> Path:
    """cpu config, 40 train rows in 4 shards (so 2 ranks split them evenly) and 3 test rows; no evidence."""
    from builder.cli import main

    out = tmp_path_factory.getbasetemp() / "train_fixture"
    argv = ["build", "--configs", "cpu", "--num-train", str(TRAIN_ROWS), "--num-validation", "0", "--num-test", "3"]
    assert main([*argv, "--verify", "none", "--rows-per-shard", "10", "--out", str(out)]) == 0
    return out


@pytest.fixture(scope="session")
def bpe(tiny):
    from builder.train import tokenizer

    return tokenizer.train_on_split(str(tiny), "cpu", vocab_size=400)


@pytest.fixture(scope="session")
def written(tmp_path_factory) -> Path:
    """real config from warp-jsb alone (5 small modules of a training package: all in train), to mix in."""
    from builder.cli import main

    out = tmp_path_factory.getbasetemp() / "train_written"
    argv = ["build", "--configs", "real", "--real-sources", "warp-jsb", "--verify", "none", "--out", str(out)]
    assert main(argv) == 0
    return out
