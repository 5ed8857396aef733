"""The child's limits, in real subprocesses."""

from __future__ import annotations

import subprocess
import sys

import pytest

from builder.errors import ConfigError
from builder.evaluate.sandbox import Limits


def test_memory_limit_stops_a_large_allocation():
    code = (
        "from builder.evaluate.child import limit_memory\n"
        "limit_memory(256)\n"
        "try:\n    b = bytearray(1 << 30)\nexcept MemoryError:\n    print('limited')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "limited"


@pytest.mark.parametrize("kwargs", [{"timeout_s": 0}, {"timeout_s": -1.0}, {"memory_mb": -1}])
def test_limits_validate(kwargs):
    with pytest.raises(ConfigError):
        Limits(**kwargs)


def test_interrupt_kills_children_and_leaves_nothing(folder, tmp_path):
    """SIGINT while children spin in infinite loops: exit 130 within seconds, no report, no work files."""
    import json
    import os
    import signal
    import time

    import pyarrow.parquet as pq

    from tests.evaluate.mutations import infinite_loop

    rows = [r for p in sorted((folder / "cpu").glob("test-*.parquet")) for r in pq.read_table(p).to_pylist()]
    pred = tmp_path / "pred.jsonl"
    pred.write_text("".join(json.dumps({"id": r["id"], "ir": infinite_loop(r["ir"])}) + "\n" for r in rows))
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    argv = ["evaluate", "--data", str(folder), "--config", "cpu", "--split", "test", "--predictions", str(pred)]
    proc = subprocess.Popen(
        [sys.executable, "-m", "builder.cli", *argv, "--out", str(tmp_path / "r.json"), "--timeout", "120"],
        env={**os.environ, "TMPDIR": str(scratch)},
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not list(scratch.glob("warp_cuda_ir_evaluate_*/job*/compiled")) and time.monotonic() < deadline:
        time.sleep(0.2)  # until a prediction compiled and spins
    assert proc.poll() is None
    start = time.monotonic()
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and time.monotonic() - start < 20
    assert "interrupted" in err
    assert not (tmp_path / "r.json").exists()
    assert list(scratch.iterdir()) == []
