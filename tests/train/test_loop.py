"""The training loop: a run killed after a checkpoint and resumed trains on exactly the rows, and reaches exactly
the losses, of a run that was never stopped."""

from __future__ import annotations

import signal

import pytest

from builder.dataset.interrupts import Interrupted
from builder.errors import ConfigError
from builder.train import checkpoint, loop
from builder.train.options import ModelOptions, TrainOptions

pytestmark = pytest.mark.slow  # builds the tiny folder (once a session) and streams it

TINY = ModelOptions(layers=1, hidden=32, heads=2, vocab_size=320)


def _opts(tiny, out, **change) -> TrainOptions:
    base = dict(max_steps=6, batch_size=8, max_length=160, max_prompt=48, buffer_size=0, save_every=3, log_every=3)
    return TrainOptions(data=str(tiny), out=str(out), warmup_steps=1, model=TINY, **{**base, **change})


def _quiet(_message: str) -> None:
    pass


def _stopper(seen: list, at: int):
    def on_step(record: dict) -> None:
        seen.append(record)
        if record["step"] == at:
            raise Interrupted(signal.SIGTERM)

    return on_step


def test_resumed_run_sees_the_rows_and_losses_of_an_uninterrupted_one(tiny, tmp_path):
    whole: list[dict] = []
    loop.train(_opts(tiny, tmp_path / "whole"), progress=_quiet, on_step=whole.append)
    parts: list[dict] = []
    with pytest.raises(KeyboardInterrupt) as stopped:
        loop.train(_opts(tiny, tmp_path / "parts"), progress=_quiet, on_step=_stopper(parts, 4))
    assert "step-000003 is kept" in stopped.value.detail
    parts = parts[:3]  # step 4 was not checkpointed: the resumed run trains it again
    loop.train(_opts(tiny, tmp_path / "parts"), resume=True, progress=_quiet, on_step=parts.append)
    assert [r["step"] for r in parts] == [1, 2, 3, 4, 5, 6]
    assert [r["ids"] for r in parts] == [r["ids"] for r in whole]  # 48 rows: into the 40-row split's 2nd epoch
    assert [r["loss"] for r in parts] == pytest.approx([r["loss"] for r in whole], rel=1e-5)
    assert [r["step"] for r in checkpoint.read_log(tmp_path / "parts")] == [3, 6]  # no step logged twice
    assert [p.name for p in checkpoint.folders(tmp_path / "parts")] == ["step-000003", "step-000006"]


def test_stopped_before_a_checkpoint_leaves_nothing(tiny, tmp_path):
    with pytest.raises(KeyboardInterrupt):
        loop.train(_opts(tiny, tmp_path / "run"), progress=_quiet, on_step=_stopper([], 1))
    assert not (tmp_path / "run").exists()


def test_time_budget_stops_with_a_checkpoint(tiny, tmp_path):
    record = loop.train(_opts(tiny, tmp_path / "run", max_minutes=1e-6, keep=1), progress=_quiet)
    assert record["step"] == 1
    assert [p.name for p in checkpoint.folders(tmp_path / "run")] == ["step-000001"]


def test_resume_refuses_other_training_options(tiny, tmp_path):
    loop.train(_opts(tiny, tmp_path / "run", max_steps=1), progress=_quiet)
    with pytest.raises(ConfigError, match="with different lr"):
        loop.train(_opts(tiny, tmp_path / "run", lr=0.5), resume=True, progress=_quiet)
    with pytest.raises(FileExistsError, match="pass --resume"):
        loop.train(_opts(tiny, tmp_path / "run"), progress=_quiet)


def test_a_second_phase_starts_from_the_first_phase_weights_and_tokenizer(tiny, tmp_path):
    import torch

    from builder.train import model, tokenizer

    loop.train(_opts(tiny, tmp_path / "one", max_steps=3), progress=_quiet)
    first = checkpoint.latest(tmp_path / "one")
    second = _opts(tiny, tmp_path / "two", max_steps=3, seed=1, init_from=str(tmp_path / "one"))
    state = loop.prepare(second, resume=False, progress=_quiet)
    trained = model.load(first).state_dict()
    assert all(torch.equal(v, trained[k]) for k, v in state.model.state_dict().items())
    assert state.step == 0 and state.tokenizer.to_str() == tokenizer.load(first / "tokenizer.json").to_str()
    # a shared tokenizer file is used as it is, not trained again
    shared = _opts(tiny, tmp_path / "three", max_steps=3, tokenizer=str(first / "tokenizer.json"))
    assert loop.prepare(shared, resume=False, progress=_quiet).tokenizer.to_str() == state.tokenizer.to_str()
    with pytest.raises(ConfigError, match="neither a checkpoint nor a run folder"):
        loop.prepare(_opts(tiny, tmp_path / "four", init_from=str(tmp_path / "missing")), False, _quiet)
