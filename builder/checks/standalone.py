"""Checks of the standalone config: the programs are whole, their evidence is there, and a sample really runs.

``StandaloneRun`` is the outside judge: it builds a sample of rows' C++ programs with g++ here, exactly as their
Makefile does, runs each on its ``inputs`` and compares what it prints with the row's ``expected_output`` (Warp's
own CPU run) within the tolerances GPU and CPU results are compared with.
"""

from __future__ import annotations

import random
import re
import shutil
import tempfile

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from builder.checks.base import Check, ConfigCheck, Context, Result, RowCheck, concat, first_ids, mismatch_result
from builder.configs import spec
from builder.standalone import host, toolchain

_READS = re.compile(r"standalone::read_inputs\(path, (\d+)\)")
_INTS = re.compile(r"(?: -?\d+)*")


class StandaloneText(RowCheck):
    """Each row holds two whole programs that launch its kernel and read exactly its inputs."""

    name = "standalone_programs"
    columns = ("kernel_name", "cpu_program", "cuda_program", "makefile", "inputs", "expected_output")
    passed = "every row's programs call its kernel, read all of its inputs and print its outputs"
    failed = "{n} rows whose programs do not fit their kernel or inputs"

    def reason(self, config, split, row):
        k, cpu, cuda = row["kernel_name"], row["cpu_program"] or "", row["cuda_program"] or ""
        if f"{k}_cpu_forward(&dim, &args);" not in cpu or "int main(" not in cpu:
            return "cpu_program does not call the kernel's forward entry point from main"
        if f"{k}_cuda_kernel_forward<<<" not in cuda or "int main(" not in cuda:
            return "cuda_program does not launch the kernel's __global__ forward kernel"
        sizes = {int(m) for text in (cpu, cuda) for m in _READS.findall(text)}
        if sizes != {len(row["inputs"] or b"")}:
            return f"programs read {sorted(sizes)} bytes, inputs holds {len(row['inputs'] or b'')}"
        if not row["makefile"] or "kernel_cpu:" not in row["makefile"]:
            return "no Makefile"
        printed = [line.partition(":")[0] for line in (row["expected_output"] or "").splitlines()]
        if not printed or any(f'standalone::print("{name}"' not in cpu for name in printed):
            return "expected_output names arrays the program does not print"
        return None


class StandaloneEvidence(ConfigCheck):
    """What the verify level promises: compile rows were built by nvcc; execute rows also ran with g++ and matched
    Warp's CPU run."""

    name = "verification"

    def check(self, config, tables):
        t = concat(tables, ["id", "verify", "cpu_program_match", "cuda_program_compiled"])
        execute = pc.equal(t.column("verify"), "execute")
        checked = pc.not_equal(t.column("verify"), "none")
        bad_cuda = pc.and_(checked, pc.invert(pc.fill_null(t.column("cuda_program_compiled"), False)))
        bad_cpu = pc.and_(execute, pc.invert(pc.fill_null(t.column("cpu_program_match"), False)))
        bad = pc.or_(bad_cuda, bad_cpu)
        n = pc.sum(pc.cast(bad, pa.int64())).as_py() or 0
        shares = {c: _share(t, c) for c in ("cpu_program_match", "cuda_program_compiled")}
        levels = ",".join(sorted(set(t.column("verify").to_pylist())))
        message = f"verify={levels}: " + ", ".join(f"{k}={100 * v:.1f}%" for k, v in shares.items())
        if n:
            return Result(self.name, config, "fail", f"{n} rows lack their evidence; {message}", n, first_ids(t, bad))
        return Result(self.name, config, "pass", message, 0, [], {"shares": shares})


def _share(t: pa.Table, column: str) -> float:
    if not t.num_rows:
        return 0.0
    return round(pc.sum(pc.cast(pc.fill_null(t.column(column), False), pa.int64())).as_py() / t.num_rows, 4)


class StandaloneRun(Check):
    """A sample of the whole-program configs' C++ programs built with g++ and run here; their output must equal
    ``expected_output``."""

    name = "standalone_run"
    COLUMNS = ["id", "seed", "split", "index", "cpu_program", "inputs", "expected_output"]

    def applies(self, context: Context) -> bool:
        return any(spec(config).programs for config in context.tables)

    def run(self, context: Context) -> Result:
        programs = {config: splits for config, splits in context.tables.items() if spec(config).programs}
        label = ",".join(programs)  # the whole-program configs: the result's ``config``
        rows = [r for splits in programs.values() for t in splits.values() for r in t.select(self.COLUMNS).to_pylist()]
        if not rows or not context.sample:
            return Result(self.name, label, "skip", "no standalone rows" if not rows else "sample of 0")
        if shutil.which("g++") is None:
            return Result(self.name, label, "skip", "g++ is not on PATH")
        chosen = random.Random(context.seed).sample(rows, min(context.sample, len(rows)))
        from builder.warp_backend import codegen

        native, mismatches = codegen.native_dir(), []
        with tempfile.TemporaryDirectory(prefix="warp_cuda_ir_validate_") as work:
            for row in chosen:
                why = _run_one(row, native, work)
                if why:
                    mismatches.append((row["id"], why))
        passed = f"{len(chosen)} sampled C++ programs built with g++, ran, and printed their expected_output"
        return mismatch_result(self.name, len(chosen), mismatches, "their expected_output", passed)


def _run_one(row: dict, native: str, work: str) -> str:
    folder = tempfile.mkdtemp(dir=work)
    with open(f"{folder}/{host.CPU_FILE}", "w") as f:
        f.write(row["cpu_program"])
    with open(f"{folder}/{host.INPUTS_FILE}", "wb") as f:
        f.write(row["inputs"])
    built = toolchain.compile_cpu(folder, host.CPU_FILE, "kernel_cpu", native)
    if not built.ok:
        return f"g++: {built.error[:200]}"
    ran = toolchain.run(folder, "kernel_cpu", host.INPUTS_FILE)
    if not ran.ok:
        return f"run: {ran.error[:200]}"
    return differs(ran.stdout, row["expected_output"])


def differs(printed: str, expected: str) -> str:
    """The arrays of ``printed`` that differ from ``expected``, or "": integer arrays exactly, float arrays within
    float32's GPU-vs-CPU tolerance (the loosest the build's per-type comparison uses; the row's program types are
    not at hand here)."""
    got, want = host.parse_output(printed), host.parse_output(expected)
    if sorted(got) != sorted(want):
        return f"printed {sorted(got)}, expected {sorted(want)}"
    exact = {line.partition(":")[0] for line in expected.splitlines() if _INTS.fullmatch(line.partition(":")[2])}
    bad = []
    for k in want:
        a, b = np.asarray(got[k]), np.asarray(want[k])
        if a.shape != b.shape or not (np.array_equal(a, b) if k in exact else np.allclose(a, b, 1e-3, 1e-3)):
            bad.append(k)
    return f"{','.join(bad)} differ" if bad else ""
