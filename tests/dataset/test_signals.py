"""SIGINT, SIGTERM and SIGHUP stop a build with one line and exit 128 + signal, and leave nothing behind but the
finished shards the next run of the same command continues."""

import signal
import time

import pytest

from tests.dataset.helpers import leftovers, start, stopped_cleanly

# long enough (verify=none, tens of rows/s) that every delay below lands inside the build
LONG = ["--num-train", "5000", "--num-validation", "0", "--num-test", "0", "--configs", "cpu", "--verify", "none"]


def _wait_for_staging(tmp_path, proc, limit=120.0):
    deadline = time.monotonic() + limit
    while not list(tmp_path.glob(".o.partial-*")) and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)


@pytest.mark.parametrize(
    "sig, delay",
    [
        (signal.SIGTERM, 0.0),  # before Python has started: the default action, and nothing exists yet
        (signal.SIGTERM, 0.4),  # during the imports
        (signal.SIGTERM, 1.0),
        (signal.SIGHUP, "staging"),  # just as the staging folder appears (Warp initialising)
        (signal.SIGTERM, "building"),  # inside the shard loop
        (signal.SIGINT, "building"),
    ],
)
def test_signal_stops_the_build_and_keeps_only_finished_shards(sig, delay, tmp_path):
    proc = start(tmp_path, "--out", str(tmp_path / "o"), *LONG, "--rows-per-shard", "100")
    if delay == "staging":
        _wait_for_staging(tmp_path, proc)
    elif delay == "building":
        _wait_for_staging(tmp_path, proc)
        time.sleep(4)
    else:
        time.sleep(delay)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=120)
    if proc.returncode == -sig:  # the signal landed before main() installed its handlers
        assert delay in (0.0, 0.4), err
    else:
        assert proc.returncode == 128 + sig, err
        assert "Traceback" not in err
        kept = stopped_cleanly(err, sig, tmp_path)
        assert kept == 0 or delay == "building", "no shard finishes before the build starts"
    assert not (tmp_path / "o").exists()
    if proc.returncode == -sig:
        assert leftovers(tmp_path) == []


def test_ctrl_c_with_worker_processes_is_one_line_and_exit_130(tmp_path):
    """Ctrl-C reaches the whole process group; only the driver answers it."""
    import os

    proc = start(tmp_path, "--out", str(tmp_path / "o"), *LONG, "--rows-per-shard", "50", "--num-proc", "2")
    proc_group_ready = time.monotonic() + 120
    _wait_for_staging(tmp_path, proc)
    while time.monotonic() < proc_group_ready and len(_children(proc.pid)) < 2:
        time.sleep(0.1)
    time.sleep(3)  # the workers are generating
    os.kill(proc.pid, signal.SIGINT)
    for child in _children(proc.pid):
        os.kill(child, signal.SIGINT)  # as a terminal's Ctrl-C does
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "TimeoutError" not in err
    stopped_cleanly(err, signal.SIGINT, tmp_path)
    assert _children(proc.pid) == []


def _children(pid: int) -> list[int]:
    from pathlib import Path

    out = []
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            fields = dict(line.split(":\t", 1) for line in status.read_text().splitlines() if ":\t" in line)
        except OSError:
            continue
        if fields.get("PPid", "").strip() == str(pid) and "resource_tracker" not in _cmdline(status.parent):
            out.append(int(status.parent.name))
    return out


def _cmdline(proc_dir) -> str:
    try:
        return (proc_dir / "cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return ""
