"""Compile evidence for shipped kernels' units: NVRTC (sm_90 PTX) for CUDA, Warp's Clang for CPU, batched as for
generated rows (``compile_units``). Kernels of one shipped module share helper functions, so they rarely land in
one batch; kernels of different modules do. A kernel's cuda-forward and cuda-backward rows hold one translation
unit (Warp emits both passes into it), which is compiled once for both."""

from __future__ import annotations

from dataclasses import dataclass

from builder.warp_backend.codegen import CUDA_ARCH
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

    def evidence(self, toolchain: str) -> dict:
        """A compiled job's evidence columns for its row: compiled, the target, ``toolchain`` (the row's target's
        JSON), and for CUDA its entry's PTX and counts."""
        cuda = self.target == "cuda"
        out = {"compiled": True, "compile_target": f"sm_{CUDA_ARCH}" if cuda else "cpu", "toolchain": toolchain}
        if cuda:
            out |= {"ptx": self.ptx, "ptx_instructions": self.ptx_instructions, "ptx_registers": self.ptx_registers}
        return out


def compile_jobs(jobs: list[CompileJob], batch_size: int = 12) -> None:
    """Fill each job's ``compiled``/``ptx``/``error``. Jobs with the same target and translation unit share one
    compile: compiled once for each pass's row, a 1,054-row sample of every package took 277 s of NVRTC instead
    of 140 s (docs/real.md). Which rows share a batch decides the numbers in a row's PTX labels (``$L__BB7_2``)."""
    for target in ("cuda", "cpu"):
        same: dict[str, list[CompileJob]] = {}  # in the jobs' order, so batches are the same in every build
        for job in jobs:
            if job.target == target:
                same.setdefault(job.tu, []).append(job)
        compile_units(list(same.values()), target, _tu, batch_size, _compiled, _failed, "r")


def _tu(group: list[CompileJob]) -> str:
    return group[0].tu


def _compiled(group: list[CompileJob], ptx: str) -> None:
    for job in group:
        job.compiled = True
        if job.target == "cuda":
            job.ptx = ptx_entries(ptx, list(job.symbols))
            job.ptx_instructions, job.ptx_registers = ptx_stats(job.ptx)


def _failed(group: list[CompileJob], message: str) -> None:
    for job in group:
        job.compiled, job.error = False, f"{'nvrtc' if job.target == 'cuda' else 'cpu compile'}: {message}"
