"""Compile evidence for shipped kernels' units: NVRTC (sm_90 PTX) for CUDA, Warp's Clang for CPU, batched as for
generated rows (``compile_units``). Kernels of one shipped module share helper functions, so they rarely land in
one batch; kernels of different modules do."""

from __future__ import annotations

from dataclasses import dataclass

from builder.warp_backend.compile_units import compile_units, ptx_entries, ptx_stats


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


def compile_jobs(jobs: list[CompileJob], batch_size: int = 12) -> None:
    """Fill each job's ``compiled``/``ptx``/``error``."""
    for target in ("cuda", "cpu"):
        compile_units([j for j in jobs if j.target == target], target, _tu, batch_size, _compiled, _failed, "r")


def _tu(job: CompileJob) -> str:
    return job.tu


def _compiled(job: CompileJob, ptx: str) -> None:
    job.compiled = True
    if job.target == "cuda":
        job.ptx = ptx_entries(ptx, list(job.symbols))
        job.ptx_instructions, job.ptx_registers = ptx_stats(job.ptx)


def _failed(job: CompileJob, message: str) -> None:
    job.compiled, job.error = False, f"{'nvrtc' if job.target == 'cuda' else 'cpu compile'}: {message}"
