"""Warp's own output during a build goes to a log file, the terminal keeps the build's lines (``chatter``)."""

from __future__ import annotations

import os

import pytest

from builder.dataset import chatter
from tests.dataset.helpers import SMALL, run


@pytest.mark.parametrize("num_proc", ["1", "2"])
def test_warps_output_goes_to_the_log_and_the_terminal_names_it(tmp_path, num_proc):
    logs = tmp_path / "logs"
    proc = run(
        tmp_path,
        "--out",
        str(tmp_path / "o"),
        *SMALL,
        "--rows-per-shard",
        "3",
        "--num-proc",
        num_proc,
        WARP_CUDA_IR_LOG_DIR=str(logs),
    )
    assert proc.returncode == 0, proc.stderr
    assert "Warp CUDA warning" not in proc.stderr and "Warp CUDA warning" not in proc.stdout
    kept = sorted(logs.glob("build-*.log"))
    from builder.warp_backend import codegen

    codegen.init_quietly()
    if codegen.cuda_available():  # Warp had nothing to say: an empty log is not kept
        assert kept == [] and "Warp's own output" not in proc.stderr
        return
    assert len(kept) == 1  # the driver warning, once for the build, whatever the process count
    assert kept[0].read_text().count("Could not find or load the NVIDIA CUDA driver") == 1
    assert f"warp-cuda-ir: Warp's own output during the build (1 line) is in {kept[0]}" in proc.stderr
    assert "warp-cuda-ir: built 4 shards" in proc.stderr  # progress stayed on the terminal


def test_descriptors_come_back_after_a_shard_and_only_this_tools_old_logs_go(tmp_path, monkeypatch, capfd):
    monkeypatch.setenv(chatter.LOG_DIR_ENV, str(tmp_path))
    (tmp_path / "notes.txt").write_text("not ours")
    for n in range(chatter.KEEP + 3):
        (tmp_path / f"build-20260101-0000{n:02d}-1.log").write_text("old")
    log = chatter.new_log()
    with chatter.sent_to(log):
        os.write(2, b"from C code\n")
        os.write(1, b"to stdout\n")
    os.write(2, b"back on the terminal\n")
    assert log.read_text() == "from C code\nto stdout\n"
    assert "back on the terminal" in capfd.readouterr().err
    assert len(list(tmp_path.glob("build-*.log"))) == chatter.KEEP and (tmp_path / "notes.txt").exists()
    chatter.finish(log)
    assert log.exists()
    empty = chatter.new_log()
    chatter.finish(empty)
    assert not empty.exists()


def test_an_unwritable_log_folder_does_not_stop_the_build(tmp_path):
    in_the_way = tmp_path / "a_file"
    in_the_way.write_text("not a folder")
    proc = run(tmp_path, "--out", str(tmp_path / "o"), *SMALL, WARP_CUDA_IR_LOG_DIR=str(in_the_way / "logs"))
    assert proc.returncode == 0, proc.stderr
    assert "warp-cuda-ir: warning: no build log" in proc.stderr and (tmp_path / "o" / "manifest.json").is_file()
    assert in_the_way.read_text() == "not a folder"
