"""Warp as the judge of a broken kernel: the first of a kernel's edits whose kernel Warp's code generator rejects,
with the diagnostic Warp raised (``builder.repair``). A drawn program is generated for the CPU as ``Module.load``
generates it for a user's launch (``first_rejected``); a written kernel is generated in a process that has run its
module's imports, as ``derived`` variants are (``first_rejected_written``). Every candidate of a kernel is loaded
as one module name, so a message that names the module reads the same in a build and in its regeneration. An
error that is not Warp's judgement of the kernel (a timeout, a crashed child, a missing package) or a message that
names a directory of this machine is passed over for the next edit."""

from __future__ import annotations

from builder.errors import WarpRejected
from builder.repair import Broken, diagnostics
from builder.repair.mutations import candidates
from builder.rng import derive_rng
from builder.warp_backend import codegen

NOT_A_DIAGNOSTIC = ("TimeoutError", "ChildProcessError", "ModuleNotFoundError", "ImportError")


def _diagnostic(rejection: WarpRejected) -> diagnostics.Diagnostic | None:
    """Warp's diagnostic in ``rejection``, or None where it is not one: the builder's own words (no exception
    class before the message: a generic kernel left without overloads), a timeout, a crash, a missing package,
    or a message naming a directory of this machine."""
    dg = diagnostics.parse(rejection.message)
    if not dg.error_class.isidentifier() or dg.error_class in NOT_A_DIAGNOSTIC:
        return None
    return None if diagnostics.machine_specific(dg.message) else dg


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
            if (dg := _diagnostic(exc)) is not None:
                return Broken(mutation, dg)
    return None


def first_rejected_written(seed: int, row_id: str, source: str, kernel_name: str) -> Broken | None:
    """``first_rejected`` for a written kernel (real's train row ``row_id``): its edits drawn from (seed, "repair",
    row_id), so a kernel is broken the same way in a build of any size. The working kernel is emitted first, the
    same way: where Warp rejects it here (a tile kernel built for another block size than its launch's), a
    diagnostic would not be about the edit, and ``WarpRejected`` is raised."""
    from builder.warp_backend.written import Zygote, leading_imports

    module = f"wcir_repair_written_{derive_rng(row_id).getrandbits(32):08x}"
    with Zygote(leading_imports(source)) as zygote:  # one process imports the kernel's package for all its edits
        zygote.emit(f"repair {row_id}", source, module, kernel_name)
        for mutation in candidates(derive_rng(seed, "repair", row_id), source, kernel_name):
            try:
                zygote.emit(f"repair {row_id}", mutation.broken_source, module, kernel_name)
            except WarpRejected as exc:
                if (dg := _diagnostic(exc)) is not None:
                    return Broken(mutation, dg)
    return None
