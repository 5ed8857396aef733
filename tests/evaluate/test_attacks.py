"""The evaluator attacked by its own predictions (tests/evaluate/attacks.py): each attack ends as a named failure
or has no effect outside its job directory. A run without the sandbox shows that the attacks are real."""

from __future__ import annotations

import json
import socket
import threading
import time
import uuid

import pytest

from builder.cli import main
from tests.evaluate import attacks as A
from tests.evaluate.test_evaluate import _rows, _write
from tests.evaluate.test_sandbox import _processes_named

pytestmark = pytest.mark.slow


class Listener:
    """A TCP listener on the host's 127.0.0.1 that records the first line of every connection."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.lines: list[bytes] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            with conn:
                conn.settimeout(2)
                self.lines.append(conn.recv(100))

    def close(self) -> list[bytes]:
        self.stop.set()
        self.thread.join()
        self.sock.close()
        return self.lines


def _attack(folder, tmp, predictions: list[str], extra: tuple[str, ...] = ()) -> tuple[dict, list[bytes], float]:
    """Evaluate ``predictions`` (made with ``{outside}``, ``{port}`` and ``{name}`` filled) on the first cpu test row;
    returns the report, what the listener received and the wall time."""
    row = _rows(folder, "cpu")[0]
    outside = tmp / "outside"
    outside.mkdir()
    (outside / "victim").write_text("keep me")
    listener = Listener()
    pred, report = tmp / "pred.jsonl", tmp / "report.json"
    _write(pred, [{"id": row["id"], "ir": make(row["ir"], outside, listener.port)} for make in predictions])
    argv = ["evaluate", "--data", str(folder), "--config", "cpu", "--split", "test", "--predictions", str(pred)]
    start = time.monotonic()
    try:
        assert main([*argv, "--out", str(report), "--num-proc", "2", "--timeout", "60", *extra]) == 0
    finally:
        received = listener.close()
    return json.loads(report.read_text()), received, time.monotonic() - start


NAME = f"wcir{uuid.uuid4().hex[:8]}"
ATTACKS = {
    "libc_walk": lambda ir, outside, port: A.libc_walk(ir, str(outside), port),
    "setsid_sleepers": lambda ir, outside, port: A.setsid_sleepers(ir, NAME),
    "stderr_flood": lambda ir, outside, port: A.stderr_flood(ir),
    "digraph_extern": lambda ir, outside, port: A.digraph_extern(ir, str(outside)),
}


@pytest.fixture(scope="module")
def sandboxed(folder, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("attacks")
    report, received, wall = _attack(folder, tmp, list(ATTACKS.values()))
    return dict(zip(ATTACKS, report["results"])), received, tmp / "outside", wall


def test_libc_walk_has_no_effect(sandboxed):
    """system(), a file written outside the job directory, a connection to the host and an unlink: none happens."""
    results, received, outside, _ = sandboxed
    assert received == []
    assert sorted(p.name for p in outside.iterdir()) == ["victim"]
    assert (outside / "victim").read_text() == "keep me"
    assert results["libc_walk"]["compiled"]


def test_setsid_sleepers_die_with_the_sandbox(sandboxed):
    results, _, _, wall = sandboxed
    assert results["setsid_sleepers"]["compiled"]
    assert (
        wall < 300
    )  # the evaluation did not wait for them (they sleep 600 s; the bound is loose for a loaded machine)
    assert _processes_named(NAME) == []


def test_stderr_flood_is_bounded(sandboxed):
    """200 MB on stderr: the child ran to its end (the output was drained, not stored) and no detail grew."""
    results, _, _, _ = sandboxed
    flood = results["stderr_flood"]
    assert flood["compiled"] and len(flood["detail"]) < 1000


def test_digraph_extern_is_rejected_statically(sandboxed):
    results, _, outside, _ = sandboxed
    assert results["digraph_extern"]["reason"] == "static: digraph"
    assert not (outside / "digraph").exists()


def test_without_the_sandbox_the_libc_walk_works(folder, tmp_path):
    """The same prediction with --unsafe-no-isolation reaches the host: the attack is real, and the sandbox is what
    stops it (it is also scored functional: the static checks alone do not catch it)."""
    report, received, _ = _attack(folder, tmp_path, [ATTACKS["libc_walk"]], ("--unsafe-no-isolation",))
    outside = tmp_path / "outside"
    assert received and received[0] == b"pwned\n"
    assert (outside / "system").read_text() == "pwned\n"
    assert (outside / "env").read_text() == "no HOME"  # the fork server's environment is scrubbed even so
    assert not (outside / "victim").exists()
    assert report["results"][0]["functional"] is True
