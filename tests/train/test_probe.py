"""builder.train.probe at a tiny scale: a run's report has its fields and finite figures, the same data gives the
same figures, a mix (and written code alone) is recorded and reproducible; the verdict over many reports."""

from __future__ import annotations

import copy
import math

import pytest

from builder.errors import ConfigError
from builder.train import probe as P

pytestmark = pytest.mark.slow  # builds a folder and trains

TINY = dict(steps=3, layers=1, hidden=32, heads=2, vocab_size=400, tokenizer_rows=24, warmup_steps=1)


def test_the_report_has_its_fields_and_finite_figures(probe_data, tmp_path):
    report = P.probe(probe_data, probe_data, P.Protocol(**TINY), tmp_path / "run", progress=lambda m: None)
    assert set(report) == {"protocol", "mix", "train", "generated", "real", "validation", "seconds"}
    assert report["mix"] is None and report["validation"] is None
    assert report["protocol"]["steps"] == 3 and report["protocol"]["checkpoint_format"] == 2
    assert report["protocol"]["data"]["generated_test"] == probe_data
    assert report["generated"]["rows"] == 3 and set(report["generated"]["by_source"]) == {"cpu"}
    assert report["real"]["rows"] > 0 and set(report["real"]["by_source"]) == {"warp_nn"}
    assert set(report["real"]["by_group"]) == {"held-out"}
    for part in ("generated", "real"):
        for key in ("nats_per_byte", "nats_per_token", "eos_nats"):
            assert math.isfinite(report[part][key]) and report[part][key] > 0
        assert report[part]["scored"] + report[part]["left_out"] == report[part]["rows"]
    assert P.finite(report)
    printed = P.table(report)
    assert "real (cpu test)" in printed and "warp_nn" in printed and "held-out" in printed


def test_same_data_same_figures(probe_data, tmp_path):
    tiny = P.Protocol(**TINY)
    first = P.probe(probe_data, probe_data, tiny, tmp_path / "a", progress=lambda m: None)
    again = P.probe(probe_data, probe_data, tiny, tmp_path / "b", progress=lambda m: None)
    assert first["generated"] == again["generated"] and first["real"] == again["real"]
    assert first["train"] == again["train"]


def test_a_mix_of_real_train_rows_is_recorded_and_reproducible(probe_data, tmp_path):
    # the mix draws real's train split (warp-jsb here); the scored real rows are its test split (warp-nn)
    tiny = P.Protocol(**TINY)
    first = P.probe(probe_data, probe_data, tiny, tmp_path / "a", progress=lambda m: None, mix=(probe_data, 0.5))
    again = P.probe(probe_data, probe_data, tiny, tmp_path / "b", progress=lambda m: None, mix=(probe_data, 0.5))
    assert first["mix"] == {"data": probe_data, "config": "real", "share": 0.5}
    assert first["real"] == again["real"] and first["train"] == again["train"]
    plain = P.probe(probe_data, probe_data, tiny, tmp_path / "c", progress=lambda m: None)
    assert plain["train"]["final_batch_loss"] != first["train"]["final_batch_loss"], "the mix changes what it learns"
    alone = P.probe(probe_data, probe_data, tiny, tmp_path / "d", progress=lambda m: None, mix=(probe_data, 1.0))
    assert P.source_of(alone).share == 1.0 and alone["mix"]["share"] == 1.0
    losses = (plain["train"]["final_batch_loss"], first["train"]["final_batch_loss"])
    assert alone["train"]["final_batch_loss"] not in losses, "written code alone is another run"


def test_the_protocol_validates_itself():
    for bad in ({"steps": 0}, {"threads": -1}, {"lr": 0.0}, {"seed": True}):
        with pytest.raises(ConfigError):
            P.Protocol(**bad)


# --- the verdict: pure arithmetic over reports, checked against figures computed here by hand ---


def _report(generator: str, share: float, seed: int, test: float, validation: float, held_out: float) -> dict:
    summary = lambda v: {"nats_per_byte": v}  # noqa: E731
    return {
        "protocol": {
            **{k: v for k, v in vars(P.Protocol(seed=seed)).items()},
            "data": {"generated": f"gen{generator}", "real": "R", "generated_test": "G"},
            "generator_version": {"generated": generator, "real": "4.5.2"},
        },
        "mix": {"data": "R", "config": "real", "share": share} if share else None,
        "generated": summary(0.2 + share),
        "real": {**summary(test), "by_group": {"held-out": summary(held_out), "in-project": summary(test - 0.01)}},
        "validation": summary(validation),
        "seconds": {"total": 10.0},
    }


def test_the_verdict_averages_over_seeds_and_chooses_the_share_on_validation_only():
    reports = [
        _report("4.5.2", 0.0, 0, 0.80, 0.81, 0.90),
        _report("4.5.2", 0.0, 1, 0.84, 0.83, 0.94),
        # on test 0.25 looks best, on validation 0.75 is: the verdict must follow validation
        _report("4.5.2", 0.25, 0, 0.60, 0.70, 0.65),
        _report("4.5.2", 0.25, 1, 0.62, 0.72, 0.66),
        _report("4.5.2", 0.75, 0, 0.65, 0.60, 0.70),
        _report("4.5.2", 0.75, 1, 0.67, 0.62, 0.72),
        _report("4.5.2", 1.0, 0, 0.55, 0.50, 0.58),
        _report("3.0.0", 0.75, 0, 0.70, 0.66, 0.75),
    ]
    summary = P.verdict(reports)
    by = {ln["source"]: ln for ln in summary["lines"]}
    gen = by["generated rows only (generator 4.5.2)"]
    assert gen["seeds"] == [0, 1] and gen["cells"]["real test"]["mean"] == pytest.approx(0.82)
    assert gen["cells"]["real test"]["min"] == 0.80 and gen["cells"]["real test"]["max"] == 0.84
    assert gen["cells"]["real test"]["sd"] == pytest.approx(0.0283, abs=1e-4)
    assert gen["cells"]["real test: held-out"]["mean"] == pytest.approx(0.92)
    assert by["real train only"]["cells"]["real test"]["sd"] is None  # one seed: no spread to claim
    assert summary["best_on_validation"] == {
        "source": "real train + generator 4.5.2, generated share 0.25",
        "real_share": 0.75,
    }, "real train only and generator 3.0.0 are not candidates; validation decides, not test"
    text = P.verdict_markdown(summary)
    assert text.count("(best on validation)") == 1 and "0.8200 ± 0.0283 (0.8000-0.8400)" in text


def test_the_verdict_refuses_reports_it_cannot_compare():
    a, b = _report("4.5.2", 0.0, 0, 0.8, 0.8, 0.9), _report("4.5.2", 0.0, 1, 0.8, 0.8, 0.9)
    other = copy.deepcopy(b)
    other["protocol"]["steps"] = 10
    with pytest.raises(ConfigError, match="one protocol"):
        P.verdict([a, other])
    with pytest.raises(ConfigError, match="same seed"):
        P.verdict([a, copy.deepcopy(a)])
    with pytest.raises(ConfigError, match="no probe reports"):
        P.verdict([])
