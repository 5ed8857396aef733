"""scripts/transfer_probe.py at a tiny scale: the report has its fields and finite figures, and the same data
gives the same figures."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

pytest.importorskip("torch", reason="the train extra is not installed")
pytest.importorskip("transformers", reason="the train extra is not installed")

from scripts import transfer_probe as P  # noqa: E402 - after the extra's guard

pytestmark = pytest.mark.slow  # builds a folder and trains


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    """One folder with a tiny cpu config (24 train, 3 test rows) and real rows of warp-nn (held out: all in test,
    which the probe scores) and warp-jsb (a training package: all in train, which a mix draws from)."""
    from builder.cli import main

    out = tmp_path_factory.mktemp("probe") / "data"
    argv = ["build", "--configs", "cpu,real", "--real-sources", "warp-nn,warp-jsb"]
    argv += ["--verify", "none"]
    argv += ["--num-train", "24", "--num-validation", "0", "--num-test", "3", "--rows-per-shard", "12"]
    assert main([*argv, "--out", str(out)]) == 0
    return str(out)


def test_the_report_has_its_fields_and_finite_figures(both, tmp_path, capsys, monkeypatch):
    out, scratch = tmp_path / "probe.json", tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))  # where the probe's temporary run folder goes
    assert P.main(["--data", both, "--real-data", both, "--steps", "2", "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    assert set(report) == {"protocol", "mix", "train", "generated", "real", "seconds"} and report["mix"] is None
    assert report["protocol"]["steps"] == 2 and report["protocol"]["checkpoint_format"] == 2
    assert report["generated"]["rows"] == 3 and set(report["generated"]["by_source"]) == {"cpu"}
    assert report["real"]["rows"] > 0 and set(report["real"]["by_source"]) == {"warp_nn"}
    assert set(report["real"]["by_group"]) == {"held-out"}
    for part in ("generated", "real"):
        for key in ("nats_per_byte", "nats_per_token", "eos_nats"):
            assert math.isfinite(report[part][key]) and report[part][key] > 0
        assert report[part]["scored"] + report[part]["left_out"] == report[part]["rows"]
    printed = capsys.readouterr().out
    assert printed.startswith("protocol: {") and "nats_per_byte" in printed and "warp_nn" in printed
    assert not list(scratch.iterdir())  # the temporary run folder is gone


def test_same_data_same_figures(both, tmp_path):
    tiny = P.Protocol(steps=3, layers=1, hidden=32, heads=2, vocab_size=400, tokenizer_rows=24, warmup_steps=1)
    first = P.probe(both, both, tiny, tmp_path / "a", progress=lambda m: None)
    again = P.probe(both, both, tiny, tmp_path / "b", progress=lambda m: None)
    assert first["generated"] == again["generated"] and first["real"] == again["real"]
    assert first["train"] == again["train"]


def test_a_mix_of_real_train_rows_is_recorded_and_reproducible(both, tmp_path):
    # the mix draws real's train split (warp-jsb here); the scored real rows are its test split (warp-nn)
    tiny = P.Protocol(steps=3, layers=1, hidden=32, heads=2, vocab_size=400, tokenizer_rows=24, warmup_steps=1)
    first = P.probe(both, both, tiny, tmp_path / "a", progress=lambda m: None, mix=(both, 0.5))
    again = P.probe(both, both, tiny, tmp_path / "b", progress=lambda m: None, mix=(both, 0.5))
    assert first["mix"] == {"data": both, "config": "real", "share": 0.5}
    assert first["real"] == again["real"] and first["train"] == again["train"]
    plain = P.probe(both, both, tiny, tmp_path / "c", progress=lambda m: None)
    assert plain["train"]["final_batch_loss"] != first["train"]["final_batch_loss"], "the mix changes what it learns"


@pytest.mark.parametrize("argv", [["--steps", "0"], ["--threads", "-1"], ["--mix-share", "0.3"]])
def test_bad_options_exit_2(both, tmp_path, argv, capsys):
    assert P.main(["--data", both, "--real-data", both, "--out", str(tmp_path / "p.json"), *argv]) == 2
    assert capsys.readouterr().err.startswith("transfer_probe: error: ")
    assert not (tmp_path / "p.json").exists()


def test_a_terminated_probe_leaves_no_temporary_folder(both, tmp_path):
    """SIGTERM while training: one line, exit 128 + 15, no report, and the temporary run folder removed."""
    root = Path(__file__).resolve().parents[2]
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    out = tmp_path / "probe.json"
    cmd = [sys.executable, str(root / "scripts" / "transfer_probe.py"), "--data", both, "--real-data", both]
    env = {**os.environ, "TMPDIR": str(scratch), "HF_HUB_OFFLINE": "1"}
    cmd += ["--steps", "100000", "--out", str(out)]
    proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 240
        while not list(scratch.glob("transfer_probe_*/run")) and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        assert proc.poll() is None, proc.communicate()[1].decode()[-2000:]
        time.sleep(1.0)  # well inside the training loop
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 128 + signal.SIGTERM, err.decode()[-2000:]
    assert err.decode().strip().splitlines()[-1] == "transfer_probe: interrupted (SIGTERM)"
    assert not out.exists()
    assert not list(scratch.glob("transfer_probe_*"))
