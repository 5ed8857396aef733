"""scripts/transfer_probe.py as a command at a tiny scale: it writes the report and prints its table, bad options
exit 2, a terminated probe leaves nothing behind (the probe itself: tests/train/test_probe.py)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("torch", reason="the train extra is not installed")
pytest.importorskip("transformers", reason="the train extra is not installed")

pytestmark = pytest.mark.slow  # builds a folder and trains
ROOT = Path(__file__).resolve().parents[2]


def _script(name: str, *args: str, scratch: Path) -> subprocess.CompletedProcess:
    """Run a script as a user does, its temporary files in ``scratch``."""
    env = {**os.environ, "TMPDIR": str(scratch), "HF_HUB_OFFLINE": "1"}
    cmd = [sys.executable, str(ROOT / "scripts" / name), *args]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, env=env, timeout=600)


def test_the_command_writes_the_report_and_prints_its_table(probe_data, tmp_path):
    out, scratch = tmp_path / "reports" / "probe.json", tmp_path / "scratch"  # its folder is made
    scratch.mkdir()
    r = _script(
        "transfer_probe.py",
        "--data",
        probe_data,
        "--real-data",
        probe_data,
        "--steps",
        "2",
        "--out",
        str(out),
        scratch=scratch,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    report = json.loads(out.read_text())  # its fields: tests/train/test_probe.py
    assert report["protocol"]["steps"] == 2 and report["seconds"]["total"] > 0
    assert r.stdout.startswith("protocol: {") and "nats_per_byte" in r.stdout and "warp_nn" in r.stdout
    assert not list(scratch.iterdir())  # the temporary run folder is gone


BAD = [
    ["--steps", "0"],
    ["--threads", "-1"],
    ["--mix-share", "0.3"],
    ["--mix-data", ".", "--mix-share", "1.5"],
    ["--out", "."],  # a folder, refused before training rather than after
]


@pytest.mark.parametrize("argv", BAD)
def test_bad_options_exit_2(probe_data, tmp_path, argv):
    out = tmp_path / "p.json"
    r = _script(
        "transfer_probe.py", "--data", probe_data, "--real-data", probe_data, "--out", str(out), *argv, scratch=tmp_path
    )
    assert r.returncode == 2 and r.stderr.strip().splitlines()[-1].startswith("transfer_probe: error: "), r.stderr
    assert not out.exists()


def test_a_terminated_probe_leaves_no_temporary_folder(probe_data, tmp_path):
    """SIGTERM while training: one line, exit 128 + 15, no report, and the temporary run folder removed."""
    root = ROOT
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    out = tmp_path / "probe.json"
    cmd = [sys.executable, str(root / "scripts" / "transfer_probe.py"), "--data", probe_data, "--real-data", probe_data]
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


def test_probe_table_summarizes_reports_and_refuses_a_missing_one(probe_data, tmp_path):
    reports = []
    for seed in (0, 1):
        out = tmp_path / f"p{seed}.json"
        argv = ["--data", probe_data, "--real-data", probe_data, "--steps", "2", "--seed", str(seed), "--out", str(out)]
        assert _script("transfer_probe.py", *argv, scratch=tmp_path).returncode == 0
        reports.append(str(out))
    r = _script("probe_table.py", *reports, "--out", str(tmp_path / "t.json"), scratch=tmp_path)
    assert r.returncode == 0, r.stderr
    (line,) = json.loads((tmp_path / "t.json").read_text())["lines"]
    assert line["seeds"] == [0, 1] and line["cells"]["real test"]["n"] == 2
    assert r.stdout.startswith("| trained on | seeds |")
    r = _script("probe_table.py", str(tmp_path / "missing.json"), "--out", str(tmp_path / "u.json"), scratch=tmp_path)
    assert r.returncode == 2 and r.stderr.startswith("probe_table: error: ")
    assert not (tmp_path / "u.json").exists()
