"""scripts/baseline_curve.py as a user runs it: refuses a folder without checkpoints, and a bad floor before
scoring (the curve's parts: tests/train/test_curve.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _run(*args: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, str(ROOT / "scripts" / "baseline_curve.py"), *args]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=300)


def test_no_checkpoints_exit_2(tmp_path):
    r = _run(str(tmp_path), "--data", str(tmp_path))
    assert r.returncode == 2 and "has no checkpoints" in r.stderr


def test_a_bad_floor_exits_2_before_scoring(tmp_path):
    r = _run(str(tmp_path), "--data", str(tmp_path), "--floor", f"retrieval_rename={tmp_path / 'missing.json'}")
    assert r.returncode == 2 and r.stderr.startswith("baseline_curve: error: --floor") and r.stderr.count("\n") == 1
