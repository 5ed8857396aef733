"""Warp as the judge of a broken kernel: the first of a program's edits whose kernel Warp's code generator rejects,
with the diagnostic Warp raised (``builder.repair``). The kernel is generated for the CPU as ``Module.load``
generates it for a user's launch; every candidate is loaded as one module name, so a message that names the
module reads the same in a build and in its regeneration."""

from __future__ import annotations

from builder.errors import WarpRejected
from builder.repair import Broken, diagnostics
from builder.repair.mutations import candidates
from builder.rng import derive_rng
from builder.warp_backend import codegen


def first_rejected(
    seed: int, split: str, index: int, source: str, kernel_name: str, block_dim: int | None
) -> Broken | None:
    """The first edit of ``candidates`` (drawn from (seed, split, index, "repair")) Warp rejects, with Warp's
    diagnostic; None when Warp accepts every one."""
    module = f"wcir_repair_{split}_{index}"
    label = f"repair seed={seed} split={split} index={index}"  # names the program if Warp raises what we do not catch
    for mutation in candidates(derive_rng(seed, split, index, "repair"), source, kernel_name):
        try:
            codegen.emit(label, mutation.broken_source, module, ("cpu",), block_dim=block_dim)
        except WarpRejected as exc:
            return Broken(mutation, diagnostics.parse(exc.message))
    return None
