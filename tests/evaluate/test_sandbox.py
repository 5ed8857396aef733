"""The child's limits and its sandbox, in real subprocesses."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

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


def _scrubbed_env() -> dict:
    from builder.evaluate.isolation import SAFE_ENV

    return {k: v for k, v in os.environ.items() if k in SAFE_ENV}


# run in a fresh interpreter with a scrubbed environment, as the fork server is: make the job's sandbox, fork,
# join it, then try what a prediction should not be able to do
CONFINED = """
import ctypes, os, socket, sys, time
from pathlib import Path
from builder.evaluate import enter, isolation
job, outside, port, name = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
holder = isolation.Holder(isolation.command(job))
pid = os.fork()
if pid == 0:
    enter.join(holder.pid, job)
    found = []
    for path in (outside / "written", job / "written"):
        try:
            path.write_text("x")
            found.append(f"wrote {path.parent.name}")
        except OSError:
            pass
    try:
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
        found.append("connected")
    except OSError:
        pass
    if os.fork() == 0:
        os.setsid()
        ctypes.CDLL(None).prctl(15, name.encode(), 0, 0, 0)
        time.sleep(600)
        os._exit(0)
    time.sleep(0.5)
    status = Path("/proc/self/status").read_text()
    caps = [x.split()[1] for x in status.splitlines() if x.startswith("CapEff")]
    print(" ".join(found), "HOME" in os.environ, caps[0], flush=True)
    os._exit(0)
os.waitpid(pid, 0)
holder.stop()
"""


def _processes_named(name: str) -> list[int]:
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and (proc / "comm").read_text().strip() == name:
                found.append(int(proc.name))
        except OSError:
            pass
    return found


def test_sandbox_confines_a_process(tmp_path):
    """In its sandbox a process writes only its job directory, reaches no listener on the host's loopback, has no
    capabilities and no HOME, and what it left running (a setsid sleeper) dies with the sandbox."""
    job, outside = tmp_path / "job", tmp_path / "outside"
    job.mkdir()
    outside.mkdir()
    name = f"wcir{uuid.uuid4().hex[:8]}"
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        listener.settimeout(0)
        argv = [sys.executable, "-c", CONFINED, str(job), str(outside), str(listener.getsockname()[1]), name]
        out = subprocess.run(argv, capture_output=True, text=True, timeout=60, env=_scrubbed_env())
        with pytest.raises(BlockingIOError):
            listener.accept()
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["wrote", "job", "False", "0000000000000000"]
    assert list(outside.iterdir()) == []
    deadline = time.monotonic() + 5
    while _processes_named(name) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _processes_named(name) == []


def test_join_refuses_an_unscrubbed_environment(tmp_path):
    """A child whose environment block still holds the evaluator's variables does not run the prediction."""
    code = (
        CONFINED.split("    found = []")[0]
        + "    print('joined')\n    os._exit(0)\nos.waitpid(pid, 0)\nholder.stop()\n"
    )
    env = {**_scrubbed_env(), "HF_TOKEN": "secret"}
    out = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path), "/", "0", "x"], capture_output=True, text=True, timeout=60, env=env
    )
    assert "joined" not in out.stdout
    assert "not scrubbed: HF_TOKEN" in out.stderr


def test_stderr_keeps_a_bounded_head_and_tail(tmp_path):
    """200 MB through the child's stderr FIFO leave the head and the tail, 128 KiB in all, and no file."""
    from builder.evaluate import output

    fifo = tmp_path / "stderr.txt"
    reader = output.Stderr(fifo)
    code = "import sys\nf = open(sys.argv[1], 'wb')\nf.write(b'first\\n' + b'x' * (200 << 20) + b'\\nlast\\n')\n"
    subprocess.run([sys.executable, "-c", code, str(fifo)], check=True, timeout=120)
    text = reader.close()
    assert text.startswith("first\n") and text.endswith("\nlast\n")
    assert len(text) < 2 * output.KEEP + 100 and "bytes left out" in text
    assert fifo.stat().st_size == 0


def test_evaluate_refuses_without_isolation(folder, tmp_path):
    """Where no sandbox can be made (here: inside a sandbox that forbids user namespaces), evaluate exits 2 with
    one line naming the flag, and writes no report."""
    from builder.evaluate import isolation

    pred = tmp_path / "pred.jsonl"
    pred.write_text("")
    report = tmp_path / "report.json"
    argv = ["evaluate", "--data", str(folder), "--config", "cpu", "--split", "test", "--predictions", str(pred)]
    jail = [isolation.bwrap(), "--unshare-user", "--disable-userns", "--ro-bind", "/", "/", "--dev", "/dev"]
    jail += ["--proc", "/proc", "--bind", str(tmp_path), str(tmp_path), "--"]
    out = subprocess.run(
        [*jail, sys.executable, "-m", "builder.cli", *argv, "--out", str(report)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**_scrubbed_env(), "TMPDIR": str(tmp_path)},
    )
    assert out.returncode == 2, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "--unsafe-no-isolation" in lines[0]
    assert not report.exists()
