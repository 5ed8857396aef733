"""The shard plan, resumable builds and fsspec outputs of the local engine."""

import json
import signal
import time

import fsspec
import pytest

from builder.build_options import BuildOptions
from builder.cli import main
from builder.sources import plan
from tests.dataset.helpers import SMALL, leftovers, run, start


def _files(folder) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize(
    "kw, expected",
    [
        (dict(num_train=240, num_validation=0, num_test=0), [("train", 0, 240)]),  # one shard, not eight
        (dict(num_train=600, num_validation=10, num_test=0), [("train", 0, 200), ("train", 200, 400)]),
        (dict(num_train=10, num_shards=4), [("train", 0, 2), ("train", 2, 5)]),
    ],
)
def test_shards_are_sized_by_rows_and_do_not_depend_on_workers(kw, expected):
    shards = plan(BuildOptions(config="cpu", **{"num_validation": 0, "num_test": 0, **kw}))
    assert [(s.split, s.start, s.stop) for s in shards][: len(expected)] == expected or kw.get("num_train") == 600
    assert all(s.rows >= 1 for s in shards)
    for split in {s.split for s in shards}:
        mine = [s for s in shards if s.split == split]
        assert mine[0].start == 0 and all(a.stop == b.start for a, b in zip(mine, mine[1:]))


def test_default_plan_of_the_default_build():
    shards = plan(BuildOptions(config="cpu"))
    assert [sum(s.split == x for s in shards) for x in ("train", "validation", "test")] == [40, 4, 4]


def test_manifest_lists_every_file_with_its_hash(tmp_path):
    out = tmp_path / "o"
    assert main(["build", "--out", str(out), *SMALL, "--rows-per-shard", "3"]) == 0
    doc = json.loads((out / "manifest.json").read_text())
    assert doc["options"]["configs"] == ["cpu"] and doc["options"]["num_train"] == 6
    import hashlib

    listed = {f["path"]: f["sha256"] for f in doc["files"]}
    on_disk = {k: hashlib.sha256(v).hexdigest() for k, v in _files(out).items() if k != "manifest.json"}
    assert listed == on_disk
    assert sum(f["rows"] for f in doc["files"] if f["path"].startswith("cpu/train-")) == 6


def test_sigterm_keeps_finished_shards_and_the_same_command_continues_to_a_fresh_build(tmp_path):
    """No --resume: a stopped build keeps its finished shards, and running the same command again continues it
    to the very bytes of an uninterrupted build."""
    args = ["--num-train", "80", "--num-validation", "0", "--num-test", "0", "--configs", "cpu", "--verify", "none"]
    args += ["--rows-per-shard", "10"]
    out = tmp_path / "o"
    proc = start(tmp_path, "--out", str(out), *args)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline and proc.poll() is None:
        if len(list(tmp_path.glob(".o.partial-*/.done/*.json"))) >= 3:
            break
        time.sleep(0.1)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 143, err
    (staging,) = tmp_path.glob(".o.partial-*")
    records = sorted((staging / ".done").glob("*.json"))
    assert len(records) >= 3
    assert err.strip().splitlines()[-1] == (
        f"warp-cuda-ir: interrupted (SIGTERM); {len(records)} finished shards kept in {staging}; "
        "run the same command to continue"
    )
    # a finished file changed since: its hash no longer matches, so it is built again
    victim = json.loads(records[0].read_text())["files"][0]["path"]
    (staging / victim).write_bytes(b"not parquet")
    again = run(tmp_path, "--out", str(out), *args)
    assert again.returncode == 0, again.stderr
    assert f"continuing the stopped build in {staging}: {len(records) - 1} finished shards reused" in again.stderr
    assert f"({len(records) - 1} reused)" in again.stderr
    fresh = run(tmp_path, "--out", str(tmp_path / "fresh"), *args)
    assert fresh.returncode == 0, fresh.stderr
    assert _files(out) == _files(tmp_path / "fresh")
    assert leftovers(tmp_path) == []


def test_a_failure_after_every_shard_is_built_keeps_them_and_the_same_command_only_finishes(tmp_path):
    """Writing the card fails (a full disk) once every shard is built: the shards stay, files already renamed to
    their final names included, and the same command finishes to the bytes of a build that never failed."""
    faults = tmp_path / "faults"
    faults.mkdir()
    (faults / "full@card").touch()
    # a row a shard: the cuda-backward shards of kernels without an adjoint are empty, so other files are renamed
    args = ["--num-train", "14", "--num-validation", "2", "--num-test", "2", "--rows-per-shard", "1"]
    args += ["--configs", "cpu,cuda-backward", "--verify", "none"]
    first = run(tmp_path, "--out", str(tmp_path / "o"), *args, WARP_CUDA_IR_FAULTS=str(faults))
    assert first.returncode == 1 and not (faults / "full@card").exists(), first.stderr
    assert first.stderr.strip().splitlines()[-1].endswith("No space left on device (injected fault)"), first.stderr
    (staging,) = tmp_path.glob(".o.partial-*")
    assert f"warp-cuda-ir: 18 finished shards kept in {staging}; run the same command to continue" in first.stderr
    again = run(tmp_path, "--out", str(tmp_path / "o"), *args)
    assert again.returncode == 0 and "(18 reused)" in again.stderr, again.stderr
    assert run(tmp_path, "--out", str(tmp_path / "ref"), *args).returncode == 0
    assert json.loads((tmp_path / "ref" / "manifest.json").read_text())["empty"]  # files were renamed
    assert _files(tmp_path / "o") == _files(tmp_path / "ref")
    assert leftovers(tmp_path) == []


def test_a_real_build_stopped_during_collection_continues_to_a_fresh_build(tmp_path):
    """real: a shard collects its modules' kernels (imports them, cuts each kernel out) and emits them; SIGTERM after
    the first shards finished keeps them, and the same command continues without collecting those modules again."""
    args = ["--configs", "real", "--real-sources", "warp-jsb,warp-nn", "--num-shards", "4", "--verify", "none"]
    out = tmp_path / "o"
    proc = start(tmp_path, "--out", str(out), *args)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and proc.poll() is None:
        if list(tmp_path.glob(".o.partial-*/.done/*.json")):
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    if proc.returncode == 0:
        pytest.skip("the build finished before the signal landed")
    assert proc.returncode == 143, err
    (staging,) = tmp_path.glob(".o.partial-*")
    kept = len(list((staging / ".done").glob("*.json")))
    assert kept >= 1 and err.strip().splitlines()[-1].endswith("run the same command to continue")
    again = run(tmp_path, "--out", str(out), *args)
    assert again.returncode == 0, again.stderr
    assert f"{kept} finished shards reused" in again.stderr
    fresh = run(tmp_path, "--out", str(tmp_path / "fresh"), *args)
    assert fresh.returncode == 0, fresh.stderr
    assert _files(out) == _files(tmp_path / "fresh")
    assert leftovers(tmp_path) == []


def test_fsspec_urls_get_the_same_files(tmp_path):
    local = tmp_path / "local"
    assert main(["build", "--out", str(local), *SMALL]) == 0
    assert main(["build", "--out", f"file://{tmp_path / 'viafile'}", *SMALL]) == 0
    assert _files(tmp_path / "viafile") == _files(local)
    url = "memory://warp_cuda_ir_test/o"
    try:
        assert main(["build", "--out", url, *SMALL]) == 0
        fs = fsspec.filesystem("memory")
        got = {p[len("/warp_cuda_ir_test/o/") :]: fs.cat_file(p) for p in fs.find("/warp_cuda_ir_test/o")}
        assert got == _files(local)
        assert main(["build", "--out", url, *SMALL]) == 2  # exists: needs --overwrite
    finally:
        fsspec.filesystem("memory").rm("/warp_cuda_ir_test", recursive=True)


def test_progress_shows_totals_rate_and_eta_and_ends_with_a_summary():
    import io

    from builder.dataset.progress import Progress

    shards = plan(BuildOptions(config="cpu", num_train=600, num_validation=10, num_test=0))
    stream = io.StringIO()
    p = Progress(shards, configs=2, engine="local", stream=stream)
    p.start -= 10  # ten seconds in
    p.finished(shards[0])
    line = p.line()
    assert line.startswith("warp-cuda-ir: train 1/3 shards, validation 0/1 shards, 200/610 rows; ")
    assert "rows/s x 2 configs; ETA 0:00:" in line  # 200 rows in 10 s: 410 rows left, about 20 s
    p.summary()
    assert stream.getvalue().strip().splitlines()[-1].startswith("warp-cuda-ir: built 1 shards, 200 rows x 2 configs")


def test_the_time_left_goes_by_the_recent_rate_once_the_slow_start_is_past(monkeypatch):
    """A worker's first shard is slow (precompiled headers, Warp's warm-up): after RATE_WINDOW seconds the time
    left is computed from the rows of the last RATE_WINDOW seconds, not from the average since the start."""
    import io

    from builder.dataset import progress

    clock = [1000.0]
    monkeypatch.setattr(progress.time, "monotonic", lambda: clock[0])
    shards = plan(BuildOptions(config="cpu", num_train=1000, num_validation=0, num_test=0, rows_per_shard=100))
    p = progress.Progress(shards, configs=1, engine="local", stream=io.StringIO())
    assert p.line().endswith("0/1000 rows; 0.0 rows/s x 1 configs; ETA ?")
    clock[0] += 100  # the first shard took 100 s
    p.finished(shards[0])
    assert p.line().endswith("100/1000 rows; 1.0 rows/s x 1 configs; ETA 0:15:00")  # before the window: the average
    for shard in shards[1:5]:  # then a shard each 25 s
        clock[0] += 25
        p.finished(shard)
        p.line()
    assert p.line().endswith("500/1000 rows; 4.0 rows/s x 1 configs; ETA 0:02:05")  # not 200 s at 2.5 rows/s
    p.summary()
    assert "500 rows x 1 configs in 0:03:20 (2.5 rows/s" in p.stream.getvalue()


def test_the_expected_rate_carries_the_time_left_through_the_slow_start(monkeypatch):
    """With an expected rate, the time left is known from the first line and the warm-up before the first row
    does not lengthen it; a slow first shard moves it only as far as RATE_WINDOW seconds of rows at the expected
    rate allow, and after 2 x RATE_WINDOW seconds the recent rate alone decides (a machine slower than expected is
    then believed)."""
    import io

    from builder.dataset import progress

    clock = [1000.0]
    monkeypatch.setattr(progress.time, "monotonic", lambda: clock[0])
    shards = plan(BuildOptions(config="cpu", num_train=1000, num_validation=0, num_test=0, rows_per_shard=100))
    p = progress.Progress(shards, configs=1, engine="local", stream=io.StringIO(), expected_rate=2.0)
    assert p.line().endswith("0/1000 rows; 0.0 rows/s x 1 configs; ETA 0:08:20")  # 1000 rows at 2 rows/s
    clock[0] += 60  # workers warming up: no row yet, and the time left has not grown
    assert p.line().endswith("0/1000 rows; 0.0 rows/s x 1 configs; ETA 0:08:20")
    p.finished(shards[0])  # the first rows
    assert p.line().endswith("100/1000 rows; 1.7 rows/s x 1 configs; ETA 0:05:52")  # 900 / ((100 + 360) / 180)
    clock[0] += 100  # a slow second shard: where the average alone would say 8 minutes left
    p.finished(shards[1])
    assert p.line().endswith("200/1000 rows; 1.2 rows/s x 1 configs; ETA 0:06:40")  # 800 / ((200 + 360) / 280)
    for shard in shards[2:8]:  # then a shard each 100 s: the machine is slower than expected
        clock[0] += 100
        p.finished(shard)
        p.line()
    assert p.line().endswith("800/1000 rows; 1.0 rows/s x 1 configs; ETA 0:03:20")


def test_the_first_row_is_noted_at_a_tick_that_prints_nothing(tmp_path, monkeypatch):
    """In a log a line is printed every LOG_EVERY seconds, but each tick notes when the running shards' first rows
    came, so the rows built before the next printed line are not taken as built in no time."""
    import io

    from builder.dataset import progress

    clock = [1000.0]
    monkeypatch.setattr(progress.time, "monotonic", lambda: clock[0])
    shards = plan(BuildOptions(config="cpu", num_train=1000, num_validation=0, num_test=0, rows_per_shard=100))
    log = io.StringIO()
    p = progress.Progress(shards, configs=1, engine="local", stream=log, beats=str(tmp_path), expected_rate=2.0)
    clock[0] += 20
    beat = progress.Heartbeat(str(tmp_path), shards[0])
    beat.beat()
    beat.flush()  # the first row, 20 s in
    p._show()  # a tick: too soon for a line in a log
    assert log.getvalue() == ""
    clock[0] += 40
    beat.rows = 60
    beat.flush()
    p._show()  # 60 s in: a line, 60 rows built in the 40 s since the first
    assert log.getvalue().endswith("60/1000 rows; 1.0 rows/s x 1 configs; ETA 0:08:12\n")  # 940 / (420 / 220)


def test_progress_of_real_shards_goes_by_their_weight():
    """A real shard's rows are known only once built: the time left goes by its weight (its modules' bytes), or
    by shards done where the plan weighed none."""
    import io

    from builder.dataset.progress import Progress
    from builder.sources.plan import Shard

    shards = [Shard("test", i, 4, i, i + 1, "real", (f"m{i}",), "shipped", 10 if i == 0 else 30) for i in range(4)]
    p = Progress(shards, configs=0, engine="local", stream=io.StringIO())
    p.start -= 10  # ten seconds in, the first shard done: 10 of 100 units of weight, so 90 s left, not 30
    p.finished(shards[0])
    assert p.line() == "warp-cuda-ir: real 1/4 shards; ETA 0:01:30"
    shards = [Shard("test", i, 4, i, i + 1, "real", (f"m{i}",), "shipped") for i in range(4)]
    p = Progress(shards, configs=0, engine="local", stream=io.StringIO())
    p.start -= 10  # ten seconds in, one shard of four done: about 30 s left
    p.finished(shards[0])
    assert p.line() == "warp-cuda-ir: real 1/4 shards; ETA 0:00:30"


def test_progress_counts_rows_of_running_shards_before_any_finishes(tmp_path):
    """Each running shard beats its rows so far; the ticker shows them from the first seconds, per row of the
    split (a shard of two configs beats twice per row), with a rate and an ETA; finished shards are not counted
    twice."""
    import io
    import time

    from builder.dataset.progress import TICK, Heartbeat, Progress

    shards = plan(BuildOptions(config="cpu", num_train=600, num_validation=0, num_test=0))
    beats = tmp_path / "beats"
    beats.mkdir()

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    screen = Terminal()
    p = Progress(shards, configs=2, engine="local", stream=screen, beats=str(beats))
    p.start -= 10
    first, second = Heartbeat(str(beats), shards[0]), Heartbeat(str(beats), shards[1])
    for _ in range(100):
        first.beat()  # 50 rows of both configs
    for _ in range(40):
        second.beat()
    first.flush(), second.flush()  # beats are written at most every TICK seconds: the last ones now
    assert p.running() == 50 + 20
    assert p.line().startswith("warp-cuda-ir: train 0/3 shards, 70/600 rows; ")
    assert "rows/s x 2 configs; ETA 0:01:" in p.line()  # 70 rows in 10 s: 530 left, about 76 s
    p.tick()
    time.sleep(2.5 * TICK)
    assert "70/600 rows" in screen.getvalue(), "the ticker redraws before any shard finished"
    p.finished(shards[0])  # its heartbeat no longer counts: the 200 rows of the finished shard do
    assert p.running() == 20 and "220/600 rows" in p.line()
    p.summary()
    assert screen.getvalue().strip().splitlines()[-1].startswith("warp-cuda-ir: built 1 shards, 200 rows x 2 configs")
    assert p.ticker is None


def test_a_heartbeat_without_its_folder_is_silent(tmp_path):
    """A Ray worker on another machine has no such folder: the shard runs and counts when it finishes."""
    from builder.dataset.progress import Heartbeat

    (shard,) = plan(BuildOptions(config="cpu", num_train=5, num_validation=0, num_test=0))
    beat = Heartbeat(str(tmp_path / "elsewhere"), shard)
    for _ in range(3):
        beat.beat()
    assert beat.rows == 3 and not (tmp_path / "elsewhere").exists()


def test_a_worker_killed_mid_shard_is_replaced_and_the_bytes_do_not_change(tmp_path):
    """Local pool: the dead worker's pool is replaced and its shard built again; its half-written file is gone."""
    faults = tmp_path / "faults"
    faults.mkdir()
    (faults / "kill@train-00000-of-00002").touch()
    (faults / "transient@test-00000-of-00001").touch()
    args = [*SMALL, "--rows-per-shard", "3"]
    r = run(tmp_path, "--out", str(tmp_path / "o"), *args, "--num-proc", "2", WARP_CUDA_IR_FAULTS=str(faults))
    assert r.returncode == 0, r.stderr
    assert list(faults.iterdir()) == []  # both fired
    fresh = run(tmp_path, "--out", str(tmp_path / "fresh"), *args)
    assert fresh.returncode == 0, fresh.stderr
    assert _files(tmp_path / "o") == _files(tmp_path / "fresh")
    assert leftovers(tmp_path) == []
