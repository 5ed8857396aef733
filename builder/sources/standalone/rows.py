"""Rows of the whole-program config (``standalone``): each drawn program as a complete C++ program and a
complete CUDA program.

The programs are Warp's own units for the CPU and for CUDA (the ``module_source`` of the program's cpu and
cuda-forward rows) with a host ``main`` (``builder.standalone.host``). Evidence: the C++ program is built with g++
and run here on the row's inputs, and what it prints is compared with Warp's own CPU run of the same launch; the
CUDA program is built with nvcc to an executable and to PTX. A program whose kernel takes a mesh, hash grid or
volume has no row (those objects are built by Warp's runtime library, which a header-only program lacks), nor one
that uses tile functions (Warp's tile headers need NVRTC; ``warp_backend.standalone.unsupported``).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

from builder.build_options import BuildOptions
from builder.schema import project
from builder.sources.base import count_left_out
from builder.sources.drawn.program_row import emit_program, leave_out, program_fields, row_label
from builder.standalone import host, toolchain
from builder.warp_backend import codegen, compile_units, compilers, execute, verify
from builder.warp_backend import standalone as sa

UNITS = ("cpu", "cuda-forward")
CHUNK = 16  # programs drawn, emitted and loaded into one Warp CPU module together


@dataclass
class Built:
    """One program's standalone form and its evidence (None: not checked at this verify level)."""

    cpu_program: str = ""
    cuda_program: str = ""
    inputs: bytes = b""
    expected_output: str = ""
    output_checksum: str = ""
    cpu_match: bool | None = None
    cpu_max_abs_err: float | None = None
    cuda_compiled: bool | None = None
    error: str = ""
    seconds: dict = field(default_factory=dict)
    # run on a GPU here (scripts/standalone_bench.py --gpu); never a column: rows must not depend on the machine
    gpu_match: bool | None = None
    gpu_max_abs_err: float | None = None


def toolchain_json() -> str:
    """What the programs are built with. Not the compilers' versions: those vary by machine, and a row is the same
    bytes on every machine (the versions a measurement used are in docs/standalone.md)."""
    tc = compilers.toolchain()
    return json.dumps(
        {
            "warp": tc["warp"],
            "warp_git_commit": tc.get("warp_git_commit"),
            "cxx_flags": " ".join(toolchain.CXX_FLAGS),
            "nvcc_flags": " ".join(toolchain.NVCC_FLAGS),
        },
        sort_keys=True,
    )


def check(built: Built, prepared: sa.Prepared, program, level: str, workdir: str, gpu: bool = False) -> None:
    """Compile (and at ``execute``, run and compare) one program in ``workdir``; fills ``built``'s evidence.
    ``gpu``: also run the CUDA program on this machine's GPU and compare it with Warp's CPU run."""
    native = codegen.native_dir()
    with open(f"{workdir}/{host.CPU_FILE}", "w") as f:
        f.write(built.cpu_program)
    with open(f"{workdir}/{host.CUDA_FILE}", "w") as f:
        f.write(built.cuda_program)
    with open(f"{workdir}/{host.INPUTS_FILE}", "wb") as f:
        f.write(built.inputs)
    gxx = toolchain.compile_cpu(workdir, host.CPU_FILE, "kernel_cpu", native)
    nvcc, ptx = toolchain.compile_cuda(workdir, host.CUDA_FILE, "kernel_cuda", native)
    built.seconds.update(gxx=gxx.seconds, nvcc=nvcc.seconds)
    built.cuda_compiled = nvcc.ok and f".entry {program.kernel_name}_cuda_kernel_forward(" in ptx
    built.error = gxx.error or nvcc.error
    if level == "compile":
        built.cpu_match = None if gxx.ok else False
        return
    if not gxx.ok:
        built.cpu_match = False
        return
    built.cpu_match, built.cpu_max_abs_err = _run(built, "kernel_cpu", "run", prepared, program, workdir)
    if gpu and nvcc.ok:
        built.gpu_match, built.gpu_max_abs_err = _run(built, "kernel_cuda", "gpu_run", prepared, program, workdir)


def _run(built: Built, exe: str, step: str, prepared: sa.Prepared, program, workdir: str) -> tuple[bool, float | None]:
    """Run one built program on its inputs: (printed outputs equal Warp's CPU run, largest difference)."""
    ran = toolchain.run(workdir, exe, host.INPUTS_FILE)
    built.seconds[step] = ran.seconds
    if not ran.ok:
        built.error = built.error or ran.error
        return False, None
    return sa.compare(host.parse_output(ran.stdout), prepared, program)


def build_one(item: verify.Item, units: dict, ns: dict, level: str, workdir: str, gpu: bool = False) -> Built:
    program = item.program
    prepared = sa.prepare(program, ns, units["cpu"].tu, units["cuda-forward"].tu, item.input_seed)
    built = Built(
        cpu_program=host.cpu_program(units["cpu"].tu, prepared.launch),
        cuda_program=host.cuda_program(units["cuda-forward"].tu, prepared.launch),
        inputs=prepared.inputs,
        expected_output=host.expected_output(sa.flat_outputs(prepared.launch, prepared.reference.outputs)),
        output_checksum=execute.checksum(prepared.reference.outputs),
    )
    if level != "none":
        check(built, prepared, program, level, workdir, gpu)
    return built


def regenerate(program, seed: int, split: str, index: int) -> dict:
    """The row's programs and inputs from its coordinates alone: drawn, emitted and described, never compiled or
    run (what ``validate``'s determinism check compares)."""
    label = row_label(seed, split, index)
    units = emit_program(program, label, f"wcir_sa_{split}_{index}", UNITS)
    module, namespaces = codegen.load_sources([(label, program.source)], f"wcir_sa_regen_{split}_{index}")
    try:
        launch, inputs = sa.describe(
            program, namespaces[0], units["cpu"].tu, units["cuda-forward"].tu, verify.input_seed(seed, split, index)
        )
    finally:
        codegen.release(module)
    return {
        "cpu_program": host.cpu_program(units["cpu"].tu, launch),
        "cuda_program": host.cuda_program(units["cuda-forward"].tu, launch),
        "makefile": host.makefile(program.kernel_name),
        "inputs": inputs,
    }


def record(opts: BuildOptions, split: str, index: int, drawn, built: Built) -> dict:
    return {
        **program_fields(opts, opts.config, split, index, drawn),
        "cpu_program": built.cpu_program,
        "cuda_program": built.cuda_program,
        "makefile": host.makefile(drawn.program.kernel_name),
        "inputs": built.inputs,
        "expected_output": built.expected_output,
        "toolchain": toolchain_json(),
        "output_checksum": built.output_checksum,
        "cpu_program_match": built.cpu_match,
        "cuda_program_compiled": built.cuda_compiled,
    }


def invalid_reason(level: str, built: Built) -> str:
    if level == "none":
        return ""
    if built.cuda_compiled is False:
        return f"nvcc failed: {built.error}"
    if built.cpu_match is False:
        return f"cpu program differs from Warp's run: {built.error or f'max_abs_err={built.cpu_max_abs_err}'}"
    return ""


def program_rows(
    opts: BuildOptions, split: str, start: int, stop: int, sample, summary: dict | None = None
) -> Iterator[dict]:
    """Rows ``start..stop-1`` of ``split``: one per drawn program that has a standalone form and passes its checks
    (``opts.on_invalid`` says what happens to one that fails; those left out are counted into ``summary``)."""
    left_out: Counter[str] = Counter()
    for index, drawn, b in programs(opts, split, start, stop, sample, left_out):
        reason = invalid_reason(opts.verify, b) or (b.error if not b.cpu_program else "")
        if reason:
            leave_out(opts, split, index, drawn.program.kernel_name, reason, left_out)
            continue
        yield project(record(opts, split, index, drawn, b), opts.config)
    if left_out and summary is not None:
        count_left_out(summary, opts.config, left_out)
    elif left_out:
        print(
            f"warp_cuda_ir: {opts.config}: {sum(left_out.values())} programs without a row in {split}[{start}:{stop}]: "
            f"{dict(sorted(left_out.items()))}",
            file=sys.stderr,
        )


def programs(
    opts: BuildOptions, split: str, start: int, stop: int, sample, left_out: Counter, gpu: bool = False
) -> Iterator[tuple]:
    """(index, drawn, Built) of each program in ``start..stop-1`` that has a standalone form, built and checked at
    ``opts.verify`` (``gpu``: the CUDA programs also run here); the others are counted in ``left_out`` by reason."""
    toolchain.require_compilers(opts.verify)
    if opts.evidence_dir:  # the build's scratch folder: removed with the build, whatever happens here
        os.makedirs(opts.evidence_dir, exist_ok=True)
    workroot = tempfile.mkdtemp(prefix="warp_cuda_ir_standalone_", dir=opts.evidence_dir)
    try:
        for lo in range(start, stop, CHUNK):
            items, units = [], {}
            for index in range(lo, min(lo + CHUNK, stop)):
                drawn = sample(opts.seed, split, index, opts.categories)
                reason = sa.unsupported(drawn.program)
                if reason:
                    left_out[reason] += 1
                    continue
                label = row_label(opts.seed, split, index)
                emitted = emit_program(drawn.program, label, f"wcir_sa_{split}_{index}", UNITS)
                it = verify.Item(label, drawn.program, emitted["cpu"].tu, verify.input_seed(opts.seed, split, index))
                items.append((index, drawn, it))
                units[id(it)] = emitted
            built = _build_chunk(opts.verify, [it for _, _, it in items], units, workroot, gpu)
            for index, drawn, it in items:
                yield index, drawn, built[id(it)]
    finally:
        shutil.rmtree(workroot, ignore_errors=True)


def _build_chunk(level: str, items: list[verify.Item], units: dict, workroot: str, gpu: bool) -> dict[int, Built]:
    """One Warp CPU load per name-disjoint batch (for the reference runs), then each program built alone."""
    built: dict[int, Built] = {}

    def attempt(batch: list[verify.Item]) -> None:
        with verify.cpu_loaded(batch, "wcir_sa") as namespaces:
            for it, ns in zip(batch, namespaces):
                workdir = tempfile.mkdtemp(dir=workroot)
                try:  # the module loaded: what fails now is this program's own, not the batch's
                    built[id(it)] = build_one(it, units[id(it)], ns, level, workdir, gpu)
                except Exception as exc:  # noqa: BLE001 - recorded, and raised under on_invalid=error
                    built[id(it)] = Built(error=f"standalone: {type(exc).__name__}: {str(exc)[:500]}")
                finally:
                    shutil.rmtree(workdir, ignore_errors=True)

    def fail(it: verify.Item, msg: str) -> None:
        built[id(it)] = Built(error=f"warp cpu load: {msg}", cpu_match=False, cuda_compiled=False)

    for group in compile_units.name_disjoint_batches(items, CHUNK, verify.python_names):
        compile_units.bisect(group, attempt, fail)
    return built
