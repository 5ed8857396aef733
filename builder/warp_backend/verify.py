"""Evidence for every row: NVRTC/CPU compilation and CPU execution, batched.

Compilers dominate the cost, so programs are compiled many per module (one
header parse per batch) and a failed batch is bisected to the failing rows.
Results are content-addressed (program source + toolchain) in a per-build
cache directory, so a program that appears in several configs is compiled and
executed once per target, even across worker processes.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import tempfile
import uuid
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import numpy as np

from builder.configs import Unit
from builder.grammar.program import Program
from builder.rng import stable_int
from builder.schema import EXEC_FIELDS, PTX_FIELDS
from builder.warp_backend import codegen, compilers, execute, prologue
from builder.warp_backend.compile_units import (
    bisect,
    compile_units,
    defined_names,
    name_disjoint_batches,
    ptx_entries,
    ptx_stats,
)


@dataclass
class Evidence:
    compiled: bool = False
    compile_target: str = ""
    ptx: str = ""
    ptx_instructions: int = 0
    ptx_registers: int = 0
    executed: bool = False
    outputs_finite: bool = False
    outputs_nondegenerate: bool = False
    grads_finite: bool = False
    output_checksum: str = ""
    grad_checksum: str = ""
    error: str = ""
    pass_ptx: dict[str, str] = field(default_factory=dict)  # CUDA: each pass's entry PTX, from one compile

    @property
    def valid(self) -> bool:
        return (
            self.compiled and self.executed and self.outputs_finite and self.outputs_nondegenerate and self.grads_finite
        )


@dataclass
class Item:
    """One program to verify: its label names the row in errors."""

    label: str
    program: Program
    tu: str  # the translation unit for this row's target
    input_seed: int
    evidence: Evidence = field(default_factory=Evidence)
    gpu: dict = field(default_factory=dict)  # gpu-verified only


def python_names(it: Item) -> set[str]:
    """Kernels, functions and structs a program defines (clash when executed into one Warp module)."""
    return it.program.names


def cuda_symbols(it: Item) -> set[str]:
    """Functions and structs a translation unit defines, including the helpers Warp emits for builtins
    written in Python (``norm_l1_0``...), which clash when translation units are concatenated."""
    try:
        body = prologue.split_tu(it.tu, "cuda")[1]
    except ValueError:
        return set()  # compiling it will fail and record why; batching needs no names from it
    return defined_names(body)


# the __global__ kernels a CUDA unit holds for a program, by pass (configs.UNITS' suffixes)
CUDA_ENTRIES = {"forward": "_cuda_kernel_forward", "backward": "_cuda_kernel_backward"}


def compile_cuda(items: list[Item], batch_size: int) -> None:
    """NVRTC-compile the items' units in batches (``compile_units``). A unit holds both passes of its kernel, so
    one compile gives the PTX of each (``Evidence.pass_ptx``)."""

    def compiled(it: Item, ptx: str) -> None:
        ev = it.evidence
        ev.compiled, ev.compile_target = True, f"sm_{codegen.CUDA_ARCH}"
        for pass_, suffix in CUDA_ENTRIES.items():
            entry = ptx_entries(ptx, [it.program.kernel_name + suffix])
            if entry:
                ev.pass_ptx[pass_] = entry

    def failed(it: Item, msg: str) -> None:
        it.evidence.compiled, it.evidence.error = False, f"nvrtc: {msg}"

    compile_units(items, "cuda", lambda it: it.tu, batch_size, compiled, failed, prefix="b")


@contextlib.contextmanager
def cpu_loaded(batch: list[Item], prefix: str) -> Iterator[list[dict]]:
    """The batch's programs executed into one fresh Warp module, built for the CPU; each program's namespace.

    A program written after sibling kernels is loaded as ``Program.module_for_row`` (the siblings' lines left
    empty): its kernel's code is the same, and compiling the siblings served no row while it took most of the
    CPU compiler's time. The module is released afterwards. The batch must be name-disjoint
    (``name_disjoint_batches``).
    """
    module, namespaces = codegen.load_sources(
        [(it.label, it.program.module_for_row) for it in batch], f"{prefix}_{uuid.uuid4().hex[:12]}"
    )
    try:
        compilers.load_cpu(module)
        yield namespaces
    finally:
        codegen.release(module)


def execute_cpu(items: list[Item], batch_size: int, backward: bool = True) -> None:
    """Compile for the CPU (with adjoints) and run forward + backward with seeded inputs."""

    def attempt(batch: list[Item]) -> None:
        with cpu_loaded(batch, "wcir_cpu") as namespaces:
            for it, ns in zip(batch, namespaces):
                it.evidence.compiled, it.evidence.compile_target = True, "cpu"
                run_one(it, ns, backward)

    def fail(it: Item, msg: str) -> None:
        it.evidence.compiled, it.evidence.error = False, f"cpu compile: {msg}"

    for batch in name_disjoint_batches(items, batch_size, python_names):
        bisect(batch, attempt, fail)


def run_one(it: Item, ns: dict, backward: bool) -> None:
    ev = it.evidence
    backward = backward and it.program.backward  # an enable_backward=False kernel has no adjoint to run
    try:
        r = execute.run(
            it.program, ns[it.program.kernel_name], ns, np.random.default_rng(it.input_seed), "cpu", backward
        )
    except Exception as exc:  # noqa: BLE001 - any launch failure is recorded as not executed
        ev.executed, ev.error = False, f"cpu launch: {type(exc).__name__}: {exc}"[:500]
        return
    ev.executed = True
    ev.outputs_finite, ev.outputs_nondegenerate, ev.grads_finite = execute.assess(r)
    ev.output_checksum, ev.grad_checksum = execute.checksum(r.outputs), execute.checksum(r.grads)


def input_seed(seed: int, split: str, index: int) -> int:
    return stable_int(seed, split, index, "inputs")


class EvidenceCache:
    """Content-addressed results on disk: key = program source + toolchain + what was checked."""

    def __init__(self, root: str | None):
        if root is None:  # a cache of its own: removed with the object (or at exit), never left in TMPDIR
            root = tempfile.mkdtemp(prefix="warp_cuda_ir_evidence_")
            weakref.finalize(self, shutil.rmtree, root, True)
        self.root = root
        os.makedirs(self.root, exist_ok=True)
        tc = compilers.toolchain()
        self.salt = f"warp={tc['warp']};nvrtc={tc['nvrtc']}"

    def _path(self, source: str, what: str) -> str:
        key = hashlib.sha256(f"{self.salt}\n{what}\n{source}".encode()).hexdigest()
        return os.path.join(self.root, key[:2], key + ".json")

    def get(self, source: str, what: str) -> dict | None:
        try:
            with open(self._path(source, what)) as f:
                return json.load(f)
        except FileNotFoundError:
            return None

    def put(self, source: str, what: str, value: dict) -> None:
        path = self._path(source, what)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = f"{path}.{uuid.uuid4().hex}.tmp"
        with open(tmp, "w") as f:
            json.dump(value, f)
        os.replace(tmp, path)  # atomic: concurrent workers never read half a file


COMPILE_FIELDS = ("compiled", "compile_target", *PTX_FIELDS)


def _cached(
    items: list[Item], key, run: Callable[[list[Item]], None], cache: EvidenceCache, fields: tuple[str, ...]
) -> dict[int, dict]:
    """Evidence records for ``items``: from the cache, or computed by ``run`` on the misses and stored."""
    records, misses = {}, []
    for n, it in enumerate(items):
        hit = cache.get(it.program.source, key(it))
        if hit is None:
            misses.append(n)
        else:
            records[n] = hit
    if misses:
        fresh = [Item(items[n].label, items[n].program, items[n].tu, items[n].input_seed) for n in misses]
        run(fresh)
        for n, it in zip(misses, fresh):
            records[n] = {k: getattr(it.evidence, k) for k in (*fields, "error")}
            cache.put(it.program.source, key(it), records[n])
    return records


def needs_cpu(unit: Unit, level: str) -> bool:
    """Whether ``verify`` builds and runs the programs of a ``unit`` on the CPU at ``level``."""
    return level != "none" and (unit.target == "cpu" or level == "execute")


def cpu_evidence(items: list[Item], cache: EvidenceCache, batch_size: int) -> dict[int, dict]:
    """The CPU build and run of each item (by position), from the cache or made in name-disjoint batches of up to
    ``batch_size`` and cached. A caller may make them for more programs than one ``verify`` call holds (a whole
    shard): the evidence of a program does not depend on its batch, and fewer, fuller batches cost the CPU
    compiler fewer invocations (``records.unit_rows``)."""
    return _cached(
        items,
        lambda it: f"cpu:{it.input_seed}",
        lambda fresh: execute_cpu(fresh, batch_size),
        cache,
        ("compiled", "compile_target", *EXEC_FIELDS),
    )


def verify(items: list[Item], unit: Unit, level: str, cache: EvidenceCache, batch_size: int = 16) -> None:
    """Fill ``item.evidence`` for the emitted ``unit`` (``configs.UNITS``: a target and a pass) at ``level``.

    One CPU compile (with adjoints) per program gives both the cpu config's compile evidence and the
    execution evidence of every config, so it is cached under one key and never repeated in a build.
    """
    if level == "none":
        return
    cpu = cpu_evidence(items, cache, batch_size) if needs_cpu(unit, level) else {}
    if unit.target == "cpu":
        compiled = cpu
    else:
        # both passes share the program's CUDA unit: one compile is the evidence of cuda-forward and cuda-backward
        compiled = _cached(
            items,
            # the unit depends on the launch block_dim too, which the source does not spell
            lambda it: f"compile:cuda:block_dim={it.program.block_dim}",
            lambda fresh: compile_cuda(fresh, batch_size),
            cache,
            ("compiled", "compile_target", "pass_ptx"),
        )
    for n, it in enumerate(items):
        ev = it.evidence
        for k in ("compiled", "compile_target"):
            setattr(ev, k, compiled[n][k])
        if unit.target != "cpu" and ev.compiled:
            ev.ptx = compiled[n]["pass_ptx"].get(unit.pass_, "")
            ev.ptx_instructions, ev.ptx_registers = ptx_stats(ev.ptx)
        ev.error = compiled[n]["error"]
        if level == "execute":
            for k in EXEC_FIELDS:
                setattr(ev, k, cpu[n][k])
            if not (cpu[n]["compiled"] and cpu[n]["executed"]):
                ev.error = ev.error or cpu[n]["error"]
