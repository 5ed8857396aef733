"""Compiling emitted units many at a time, for generated and shipped rows alike.

Compilers dominate the cost of evidence, and most of a Warp unit is the same prologue (Warp's headers), so units
are compiled in batches: their own code concatenated under one copy of the prologue, one header parse for many
units. Two units in a batch must not define the same top-level name (``defined_names``), and a batch that fails is
bisected down to the units that fail (``bisect``). A unit whose prologue differs from the usual one (a tile
kernel's block size, bf16 support) is compiled alone.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from typing import TypeVar

from builder.warp_backend import compilers, prologue

U = TypeVar("U")


def name_disjoint_batches(items: list[U], size: int, names: Callable[[U], set[str]]) -> list[list[U]]:
    """Greedy, order-preserving grouping so no two items in a batch define the same name."""
    batches: list[tuple[set[str], list[U]]] = []
    for it in items:
        mine = names(it)
        for taken, batch in batches:
            if len(batch) < size and not (taken & mine):
                batch.append(it)
                taken |= mine
                break
        else:
            batches.append((set(mine), [it]))
    return [b for _, b in batches]


# a top-level definition: a function (its declarator's name before the parenthesis; an extern "C" kernel or
# CPU entry point included, as two programs may give their kernels the same name, and a CUDA kernel's
# ``__launch_bounds__(n)`` skipped, else every CUDA kernel "defined" that one name and none shared a batch),
# a struct, a constant
_DEFINED = re.compile(
    r'^(?:extern "C" )?(?:__launch_bounds__\([^)]*\) )?(?:[\w:<>,*&][\w:<>,*& ]*?\s)?[*&]?(\w+)\s*\('
    r"|^struct (\w+)|^(?:static )?__constant__ \w+ (\w+)",
    re.M,
)


def defined_names(code: str) -> set[str]:
    """Top-level names a unit's own code defines (over-approximated): two units sharing one cannot be
    compiled as one concatenated unit."""
    return {next(g for g in m.groups() if g) for m in _DEFINED.finditer(code)}


def bisect(
    batch: list[U], attempt: Callable[[list[U]], None], on_fail: Callable[[U, str], None], halves: bool = True
) -> None:
    """Run ``attempt`` on the batch; on failure split it until single failing items remain: in halves, or with
    ``halves`` False one by one (where a failed attempt costs many successful ones)."""
    try:
        attempt(batch)
    except Exception as exc:  # noqa: BLE001 - compiler errors come in many types
        if len(batch) == 1:
            on_fail(batch[0], f"{type(exc).__name__}: {str(exc)[:500]}")
            return
        mid = len(batch) // 2
        for part in (batch[:mid], batch[mid:]) if halves else [[u] for u in batch]:
            bisect(part, attempt, on_fail, halves)


def compile_units(
    units: list[U],
    target: str,
    tu: Callable[[U], str],
    batch_size: int,
    compiled: Callable[[U, str], None],
    failed: Callable[[U, str], None],
    prefix: str,
) -> None:
    """Compile every unit's translation unit ``tu(unit)`` for ``target`` (cuda: NVRTC at ``codegen.CUDA_ARCH``;
    cpu: Warp's Clang), in name-disjoint batches, bisected on failure. ``compiled(unit, ptx)`` is called for each
    unit that compiled, with its batch's whole PTX ("" for the CPU); ``failed(unit, message)`` for each that did
    not. ``prefix`` starts each compile's module name."""
    parts: dict[int, tuple[str, str] | None] = {}
    for u in units:
        try:
            head, own = prologue.split_tu(tu(u), target)
            parts[id(u)] = (head, own) if head else None
        except ValueError:
            parts[id(u)] = None  # compiling it alone will fail, or not, and say why; batching needs nothing from it

    def attempt(batch: list[U]) -> None:
        if len(batch) == 1:
            code = tu(batch[0])
        else:
            code = parts[id(batch[0])][0] + "".join(parts[id(u)][1] for u in batch)
        # NVRTC names a translation unit's internal-linkage functions after its file name, and a row's PTX calls
        # the ones it does not inline: a random name made those rows' PTX differ from build to build
        name = f"{prefix}{hashlib.sha256(code.encode()).hexdigest()[:12]}"
        if target == "cuda":
            ptx = compilers.nvrtc_compile(code, name)
        else:
            compilers.cpu_compile(code, name)
            ptx = ""
        for u in batch:
            compiled(u, ptx)

    batchable = [u for u in units if parts[id(u)] is not None]
    alone = [[u] for u in units if parts[id(u)] is None]
    # Warp's Clang compiles a unit that fails twice (again without its precompiled header, about 1.5 s), so a failed
    # CPU attempt costs about fifteen that pass: a CPU batch that fails is split one by one, not in halves. Which
    # units share a batch decides nothing in a CPU row (no PTX is kept).
    for batch in name_disjoint_batches(batchable, batch_size, lambda u: defined_names(parts[id(u)][1])) + alone:
        bisect(batch, attempt, failed, halves=target == "cuda")


_ENTRY = re.compile(r"^\.(?:visible|weak) \.entry (\w+)\(", re.M)


def ptx_entries(ptx: str, symbols: list[str]) -> str:
    """Just these kernels' ``.entry`` blocks (the module's constant tables are left out)."""
    out = []
    for m in _ENTRY.finditer(ptx):
        if m.group(1) in symbols:
            end = ptx.find("\n}\n", m.start())
            out.append(ptx[m.start() : end + 3])
    return "\n".join(out)


def ptx_stats(entry: str) -> tuple[int, int]:
    """(instructions, virtual registers declared) of PTX entry text."""
    regs = sum(int(n) for n in re.findall(r"\.reg \.\w+ \s*%\w+<(\d+)>;", entry))
    instr = sum(
        1
        for line in entry.splitlines()
        if line.startswith("\t") and line.rstrip().endswith(";") and not line.lstrip().startswith((".", "//"))
    )
    return instr, regs
