"""builder.train.curve: the plot, a floor's rate on the scored rows, scores reused only for the same options."""

from __future__ import annotations

import argparse
import json

import pytest

from builder.train import curve


def test_plot_writes_a_png(tmp_path):
    log = [{"step": s, "loss": 5.0 / s} for s in (10, 20, 30)]
    held = [{"nats_per_token": 6.0 / s, "nats_per_byte": 1.5 / s} for s in (10, 30)]
    scores = [
        {"step": s, "held_out": h, "exact_match": 0.0, "compiled": s / 100, "functional": s / 200}
        for s, h in zip((10, 30), held)
    ]
    curve.plot(log, scores, tmp_path / "curve.png", floors={"retrieval_rename": 0.375})
    assert (tmp_path / "curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_of_loss_only_scores_has_no_rates(tmp_path):
    log = [{"step": s, "loss": 5.0 / s} for s in (10, 20, 30)]
    scores = [{"step": s, "held_out": {"nats_per_token": 6.0 / s, "nats_per_byte": 1.5 / s}} for s in (10, 30)]
    curve.plot(log, scores, tmp_path / "curve.png")
    assert (tmp_path / "curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_floor_is_its_compiled_rate_on_the_scored_rows(tmp_path):
    results = [{"id": f"cpu/test/0/{i}", "compiled": i % 4 == 0} for i in range(8)]
    (tmp_path / "r.json").write_text(json.dumps({"results": results}))
    spec = f"retrieval_rename={tmp_path / 'r.json'}"
    assert curve.floor_rates([spec]) == {"retrieval_rename": 0.25}
    assert curve.floor_rates([spec], ["cpu/test/0/0", "cpu/test/0/1"]) == {"retrieval_rename": 0.5}
    with pytest.raises(ValueError, match="NAME=REPORT"):
        curve.floor_rates(["retrieval_rename"])


def test_scores_of_the_same_options_are_reused_and_others_are_not(tmp_path):
    out = tmp_path / "curve"
    args = argparse.Namespace(
        data="d", config="cpu", split="test", limit=40, max_new_tokens=0, batch_size=20, real_data="", loss_only=False
    )
    assert curve.earlier(out, args) == {}
    scores = [{"step": 250, "compiled": 0.1}, {"step": 500, "compiled": 0.2}]
    out.with_suffix(".json").write_text(json.dumps({"scoring": curve.scoring(args), "log": [], "scores": scores}))
    assert curve.earlier(out, args) == {250: scores[0], 500: scores[1]}
    args.limit = 100  # scored on other rows: measured again
    assert curve.earlier(out, args) == {}
    args.limit, args.loss_only = 40, True  # losses alone: the rates of the earlier call are not these scores
    assert curve.earlier(out, args) == {}
