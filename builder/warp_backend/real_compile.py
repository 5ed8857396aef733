"""Compile evidence for real-kernel units: NVRTC (sm_90 PTX) for CUDA, Warp's Clang for CPU, batched.

Units whose names do not clash share one compiler invocation (one header parse for many kernels); a failed
batch is bisected down to the units that fail, as for generated rows. Kernels of one shipped module share
helper functions, so they rarely land in one batch; kernels of different modules do.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

from builder.warp_backend import codegen, verify


@dataclass
class CompileJob:
    """One unit to compile; ``symbols`` are the row's entry functions whose PTX is kept (CUDA)."""

    target: str  # cuda or cpu
    tu: str
    symbols: tuple[str, ...]
    compiled: bool = False
    ptx: str = ""
    ptx_instructions: int = 0
    ptx_registers: int = 0
    error: str = ""
    _split: tuple[str, str] | None = field(default=None, repr=False)

    def split(self) -> tuple[str, str] | None:
        """(Warp's prologue, this unit's own code), or None when the prologue differs (tile block size, bf16)."""
        if self._split is None:
            try:
                self._split = codegen.split_tu(self.tu, self.target)
            except ValueError:
                self._split = ("", "")
        return self._split if self._split[0] else None


def _names(job: CompileJob) -> set[str]:
    """Top-level names a unit defines (over-approximated): units sharing one cannot share a batch."""
    parts = job.split()
    if parts is None:
        return {f"__alone_{id(job)}"}  # never batched
    return verify.defined_names(parts[1])


def compile_jobs(jobs: list[CompileJob], batch_size: int = 12) -> None:
    """Fill each job's ``compiled``/``ptx``/``error``."""
    for target in ("cuda", "cpu"):
        mine = [j for j in jobs if j.target == target]
        batchable = [j for j in mine if j.split() is not None]
        alone = [[j] for j in mine if j.split() is None]
        for batch in verify.name_disjoint_batches(batchable, batch_size, _names) + alone:
            verify.bisect(batch, _attempt, _fail)


def _attempt(batch: list[CompileJob]) -> None:
    if len(batch) == 1:
        tu = batch[0].tu
    else:
        tu = batch[0].split()[0] + "".join(j.split()[1] for j in batch)
    name = f"r{uuid.uuid4().hex[:12]}"
    if batch[0].target == "cuda":
        ptx = codegen.nvrtc_compile(tu, name)
        for j in batch:
            j.compiled, j.ptx = True, verify.ptx_entries(ptx, list(j.symbols))
            j.ptx_instructions, j.ptx_registers = verify.ptx_stats(j.ptx)
    else:
        codegen.cpu_compile(tu, name)
        for j in batch:
            j.compiled = True


def _fail(job: CompileJob, message: str) -> None:
    job.compiled, job.error = False, f"{'nvrtc' if job.target == 'cuda' else 'cpu compile'}: {message}"
