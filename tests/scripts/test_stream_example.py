"""``scripts/stream_example.py`` as a user runs it: the trainer's stream (``builder.train.stream.RowStream``, tested in
``tests/train/test_stream.py``) on a built folder, read by rank, checkpointed and resumed where it stopped."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # every test here reads the session's built folder

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "stream_example.py"


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=300)


def test_each_rank_reads_its_own_shard_and_resumes_after_its_checkpoint(folder):
    # 6 train rows in 2 shards: rank 0 reads rows 0-2, rank 1 rows 3-5; without a buffer, in order
    for rank, first in ((0, 0), (1, 3)):
        r = _run(str(folder), "--rank", str(rank), "--steps", "2", "--buffer-size", "0")
        assert r.returncode == 0, r.stderr
        lines = r.stdout.splitlines()
        assert lines[0] == f"rank {rank}/2: 1 shard(s)"
        assert [line.split()[2] for line in lines[1:3]] == [f"cuda-forward/train/0/{first + k}" for k in (0, 1)]
        assert lines[-1] == f"resumed: epoch 0, next row cuda-forward/train/0/{first + 2}"


def test_bad_arguments_are_one_line_and_exit_2(folder, tmp_path):
    for args, why in (([str(tmp_path / "nope")], "is not a folder"), ([str(folder), "--rank", "2"], "--rank")):
        r = _run(*args)
        assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and why in r.stderr, r.stderr
