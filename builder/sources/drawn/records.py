"""From (options, split, index range) to finished rows: sample (``builder.grammar.sample``), emit, verify, record."""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Iterator

from builder.build_options import BuildOptions
from builder.configs import UNITS, spec
from builder.grammar.program import Program
from builder.grammar.sample import Drawn, sample
from builder.schema import GPU_FIELDS, project
from builder.sources.base import count_left_out
from builder.sources.columns import unit_columns
from builder.sources.drawn.program_row import emit_program, leave_out, program_fields, row_label
from builder.warp_backend import codegen, compilers, verify

# Programs drawn, emitted and verified together: up to this many share a compiler invocation per target (a batch's
# header parse costs Clang or NVRTC about a second). At 64 (16 until generator 4.5.3) a build of the default configs
# took 12% less CPU (scripts/bench.py); which programs share a batch numbers the labels of their PTX.
CHUNK = 64
FORWARD = "cuda-forward"  # every program has a forward kernel (not every one an adjoint)


def base_record(
    opts: BuildOptions, config: str, split: str, index: int, drawn: Drawn, unit: codegen.Unit, target: str, pass_: str
) -> dict:
    rec = program_fields(opts, config, split, index, drawn)
    if spec(config).units_per_program > 1:  # gpu-verified: a row per pass, told apart by the id
        rec["id"] += f"/{pass_}"
    return {
        **rec,
        **unit_columns(target, pass_, unit.ir, unit.entry, unit.tu, codegen.options_json(unit.options)),
        **{k: None for k in GPU_FIELDS},
    }


def evidence_fields(ev: verify.Evidence, target: str) -> dict:
    fields = {k: getattr(ev, k) for k in (*verify.COMPILE_FIELDS, *verify.EXEC_FIELDS)}
    fields["toolchain"] = compilers.toolchain_json(target)
    return fields


def emitted_configs(program: Program, configs: tuple[str, ...]) -> tuple[str, ...]:
    """The configs among ``configs`` that have a row for ``program``: a kernel declared
    ``@wp.kernel(enable_backward=False)`` has no adjoint, so no cuda-backward row (nor gpu-verified backward)."""
    return tuple(c for c in configs if program.backward or c != "cuda-backward")


def generated_rows(
    opts: BuildOptions, split: str, start: int, stop: int, summary: dict | None = None
) -> Iterator[dict]:
    """Rows ``start..stop-1`` of ``split`` for ``opts.config``, verified in chunks; a program whose kernel
    has no adjoint gives no cuda-backward row (``emitted_configs``). Rows left out are counted into ``summary``
    (``count_left_out``), else said on stderr."""
    for _, row in unit_rows((opts,), split, start, stop, summary):
        yield row


def unit_rows(
    options: tuple[BuildOptions, ...], split: str, start: int, stop: int, summary: dict | None = None
) -> Iterator[tuple[str, dict]]:
    """``(config, row)`` for rows ``start..stop-1`` of ``split`` of several configs of units at once (options that
    differ only in ``config``, all GPU-compared or none): each program is drawn and emitted once for all of them
    (one load of its module, one code generation per target) and its evidence gathered once per unit, in the
    order of ``options``, so every config gets the rows a build of it alone writes. Rows left out are counted by
    reason into ``summary`` (``count_left_out``: the shard's record), else said on stderr."""
    opts = options[0]
    (gpu,) = {spec(o.config).gpu for o in options}
    passes = tuple(dict.fromkeys(u for o in options for u in spec(o.config).units))
    cache = verify.EvidenceCache(opts.evidence_dir) if opts.verify != "none" else None
    left_out: dict[str, Counter[str]] = {o.config: Counter() for o in options}
    programs = {index: sample(opts.seed, split, index, opts.categories) for index in range(start, stop)}
    if cache is not None and any(verify.needs_cpu(UNITS[c], opts.verify) for c in (*passes, FORWARD)):
        _shard_cpu_evidence(opts, split, programs, cache)
    for lo in range(start, stop, CHUNK):
        drawn = [_draw(opts, split, index, passes, programs.pop(index)) for index in range(lo, min(lo + CHUNK, stop))]
        per_pass = _evidence(opts, split, drawn, passes, cache, gpu)
        for o in options:
            units = spec(o.config).units
            chunk = [(i, d, label, {c: u for c, u in e.items() if c in units}) for i, d, label, e in drawn]
            for row in _chunk_rows(o, split, chunk, per_pass, gpu, left_out[o.config]):
                yield o.config, row
    for config, counts in left_out.items():
        if counts and summary is not None:
            count_left_out(summary, config, counts)
        elif counts:
            print(
                f"warp_cuda_ir: {config}: left out {sum(counts.values())} invalid rows in {split}[{start}:{stop}]: "
                f"{dict(sorted(counts.items()))}",
                file=sys.stderr,
            )


Emitted = tuple[int, Drawn, str, dict]  # (index, its program, its label in errors, config -> codegen.Unit)


def _shard_cpu_evidence(opts: BuildOptions, split: str, programs: dict[int, Drawn], cache) -> None:
    """The CPU build and run of every program of the shard, into the evidence cache, where each chunk's ``verify``
    finds it. Batched over the whole shard, not chunk by chunk: programs that define the same name cannot share a
    CPU module, so a chunk of 64 programs took about six compiler invocations, and the shard's programs fill
    fewer, fuller batches (a quarter less CPU for the CPU evidence, the same evidence)."""
    items = [
        verify.Item(row_label(opts.seed, split, i), d.program, "", verify.input_seed(opts.seed, split, i))
        for i, d in programs.items()
    ]
    verify.cpu_evidence(items, cache, CHUNK)


def _draw(opts: BuildOptions, split: str, index: int, passes: tuple[str, ...], drawn: Drawn) -> Emitted:
    """Row ``index``'s program (``drawn``) and the units Warp emits for it, for the passes it has a row in."""
    label = row_label(opts.seed, split, index)
    mine = emitted_configs(drawn.program, passes)
    if opts.verify != "none" and any(UNITS[c].target == "cuda" for c in passes):
        mine = tuple(dict.fromkeys((*mine, FORWARD)))  # the unit every program has, for the chunk's one compile
    return index, drawn, label, emit_program(drawn.program, label, f"wcir_{split}_{index}", mine)


def _evidence(
    opts: BuildOptions, split: str, chunk: list[Emitted], passes: tuple[str, ...], cache, gpu: bool
) -> dict[str, list[verify.Item | None]]:
    """The chunk's evidence, per pass and row (None where a row has no unit for the pass), verified together."""
    own = _own_cuda_units(split, chunk) if opts.verify != "none" else {}
    if any(FORWARD in emitted for *_, emitted in chunk):
        # NVRTC numbers a kernel's PTX labels within its batch, so every program of the chunk is compiled in one
        # set of batches whichever CUDA configs the build has (a cuda-backward build alone leaves out the programs
        # without an adjoint): a row's ptx does not depend on the configs built with it. The passes below find it
        # in the cache, as they find the CPU build and run this call also makes.
        every = [
            verify.Item(label, d.program, own.get((i, FORWARD), e[FORWARD]).tu, verify.input_seed(opts.seed, split, i))
            for i, d, label, e in chunk
            if FORWARD in e
        ]
        verify.verify(every, UNITS[FORWARD], opts.verify, cache, batch_size=CHUNK)
    per_pass: dict[str, list[verify.Item | None]] = {}
    for cfg in passes:
        items = [
            verify.Item(
                label, drawn.program, own.get((index, cfg), emitted[cfg]).tu, verify.input_seed(opts.seed, split, index)
            )
            if cfg in emitted
            else None
            for index, drawn, label, emitted in chunk
        ]
        verify.verify([it for it in items if it is not None], UNITS[cfg], opts.verify, cache, batch_size=CHUNK)
        per_pass[cfg] = items
    if gpu:
        from builder.warp_backend import gpu as gpu_verify

        gpu_verify.compare_devices(per_pass["cuda-forward"], per_pass)
    return per_pass


def _own_cuda_units(split: str, chunk: list[Emitted]) -> dict[tuple[int, str], codegen.Unit]:
    """The CUDA units NVRTC compiles as the evidence of rows whose kernel follows sibling kernels: Warp's unit of
    ``Program.module_for_row`` (the siblings' lines left empty), which holds the row's function as its
    ``module_source`` does (tests/warp_backend/test_module_for_row.py); compiling the siblings too served no row.
    The CPU evidence is built from the same module (``verify.cpu_loaded``)."""
    out = {}
    for index, drawn, label, emitted in chunk:
        program = drawn.program
        cuda = tuple(c for c in emitted if UNITS[c].target == "cuda")
        if cuda and program.own_at:
            module = program.module_for_row
            units = codegen.emit(label, module, f"wcir_{split}_{index}_own", cuda, block_dim=program.block_dim)
            out |= {(index, c): u for c, u in units.items()}
    return out


def _chunk_rows(
    opts: BuildOptions, split: str, chunk: list[Emitted], per_pass: dict, gpu: bool, left_out: Counter
) -> Iterator[dict]:
    """The chunk's rows with their evidence; an invalid one stops the build or is counted in ``left_out``."""
    for k, (index, drawn, _, emitted) in enumerate(chunk):
        for cfg in emitted:
            target, pass_, _ = UNITS[cfg].as_tuple()
            rec = base_record(opts, opts.config, split, index, drawn, emitted[cfg], target, pass_)
            item = per_pass[cfg][k]
            rec.update(evidence_fields(item.evidence, target))
            if gpu:
                rec.update(item.gpu)
            reason = invalid_reason(opts, item, gpu)
            if reason:
                leave_out(opts, split, index, drawn.program.kernel_name, reason, left_out)
                continue
            yield project(rec, opts.config)


def invalid_reason(opts: BuildOptions, item: verify.Item, gpu: bool) -> str:
    ev = item.evidence
    if opts.verify == "none":
        return ""
    if not ev.compiled:
        return f"not compiled: {ev.error}"
    if opts.verify == "execute":
        if not ev.executed:
            return f"not executed: {ev.error}"
        if not (ev.outputs_finite and ev.grads_finite):
            return "non-finite outputs or gradients"
        if not ev.outputs_nondegenerate:
            return "degenerate outputs: constant or unchanged"
    if gpu and not item.gpu.get("gpu_match"):
        return f"gpu mismatch: max_abs_err={item.gpu.get('max_abs_err')}"
    return ""
