"""Standalone programs judged by outside tools: g++ builds and runs the C++ program on the row's inputs and its
output equals Warp's own CPU run; nvcc builds the CUDA program to an executable and PTX; ``make`` builds both
from the row's Makefile."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from builder.build_options import BuildOptions
from builder.checks.standalone import differs
from builder.grammar.sample import sample
from builder.sources.standalone import rows as standalone_rows
from builder.standalone import host, toolchain
from builder.warp_backend import codegen

pytestmark = pytest.mark.skipif(shutil.which("g++") is None or toolchain.nvcc() is None, reason="needs g++ and nvcc")
# test split of seed 0 (generator 4.0.0): 11 a launch with vectors; 56 an atomic reduction (acc, index, vec arrays);
# 63 float16
INDICES = (11, 56, 63)


@pytest.fixture(scope="module")
def rows():
    opts = BuildOptions(config="standalone", num_train=0, num_validation=0, num_test=64, on_invalid="error")
    out = {}
    for i in INDICES:
        out[i] = list(standalone_rows.program_rows(opts, "test", i, i + 1, sample))
    return out


def _write(row: dict, folder: Path) -> None:
    (folder / host.CPU_FILE).write_text(row["cpu_program"])
    (folder / host.CUDA_FILE).write_text(row["cuda_program"])
    (folder / "Makefile").write_text(row["makefile"])
    (folder / host.INPUTS_FILE).write_bytes(row["inputs"])


@pytest.mark.parametrize("index", INDICES)
def test_row_carries_matching_evidence(rows, index):
    (row,) = rows[index]
    assert row["cpu_program_match"] is True and row["cuda_program_compiled"] is True
    # the program is Warp's unit, one line commented out, plus a host main
    unit = codegen.emit("t", row["python_source"], "t_sa", ("cpu",), block_dim=row["block_dim"])["cpu"].tu
    assert host.standalone_unit(unit) in row["cpu_program"]


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_makefile_builds_and_runs_as_a_user_would(rows, tmp_path):
    (row,) = rows[63]
    _write(row, tmp_path)
    env = {"PATH": os.environ["PATH"], "WARP_NATIVE": codegen.native_dir(), "TMPDIR": str(tmp_path)}
    res = subprocess.run(["make", "-s", "run"], cwd=tmp_path, capture_output=True, text=True, env=env, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    assert differs(res.stdout, row["expected_output"]) == ""
    res = subprocess.run(["make", "-s", "kernel.ptx"], cwd=tmp_path, capture_output=True, text=True, env=env)
    assert res.returncode == 0, res.stderr[-2000:]
    assert f".entry {row['kernel_name']}_cuda_kernel_forward(" in (tmp_path / "kernel.ptx").read_text()


def test_wrong_inputs_file_is_one_line_and_exit_2(rows, tmp_path):
    (row,) = rows[11]
    _write(row, tmp_path)
    built = toolchain.compile_cpu(str(tmp_path), host.CPU_FILE, "kernel_cpu", codegen.native_dir())
    assert built.ok, built.error
    (tmp_path / "short.bin").write_bytes(row["inputs"][:-1])
    res = subprocess.run(["./kernel_cpu", "short.bin"], cwd=tmp_path, capture_output=True, text=True)
    assert res.returncode == 2 and res.stderr.count("\n") == 1 and "bytes" in res.stderr
    res = subprocess.run(["./kernel_cpu", "missing.bin"], cwd=tmp_path, capture_output=True, text=True)
    assert res.returncode == 2 and "cannot open missing.bin" in res.stderr


def test_changed_input_changes_the_output(rows, tmp_path):
    # the program really computes from inputs.bin: flip the first input array's bytes and the outputs move
    (row,) = rows[11]
    _write(row, tmp_path)
    built = toolchain.compile_cpu(str(tmp_path), host.CPU_FILE, "kernel_cpu", codegen.native_dir())
    assert built.ok, built.error
    data = bytearray(row["inputs"])
    data[:16] = bytes(16)
    (tmp_path / "zeroed.bin").write_bytes(bytes(data))
    ran = toolchain.run(str(tmp_path), "kernel_cpu", "zeroed.bin")
    assert ran.ok and differs(ran.stdout, row["expected_output"]) != ""
    assert differs(toolchain.run(str(tmp_path), "kernel_cpu", host.INPUTS_FILE).stdout, row["expected_output"]) == ""


def test_programs_without_a_standalone_form_are_named():
    from builder.grammar.policy import CATEGORIES
    from builder.warp_backend import standalone as sa

    # the first 96 programs of seed 0 hold a mesh query and a tile kernel (generator 4.4.0: the first mesh is at 65)
    reasons = {sa.unsupported(sample(0, "train", i, CATEGORIES).program) for i in range(96)}
    assert any(r.startswith("needs warp.so to build its") and "mesh" in r for r in reasons), reasons
    assert any(r.startswith("uses tile functions") for r in reasons)
