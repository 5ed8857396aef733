"""The module around a program: other kernels of its kind before it, as a written module holds many.

Warp's comments mark each statement of a kernel's code with its line in the module (``// x = a[i]  <L 189>``).
A written kernel sits deep in a long file (the kernels the ``real`` config scores start at a median line of 189,
two in three past line 100), while a generated module held one kernel near its top (lines 5 to 43). A model
trained on those had never continued a three-digit line count, and those marks cost a real row 1.29 nats per
byte, against 0.36 for the marks of generated rows (docs/baseline.md, "Generator 4.5.0").

So some programs are written as the last kernel of a module that first holds sibling kernels of the same
category, each with its constants, structs and helpers, drawn like any program. The row is still the last
kernel: its arguments, launch and evidence are the program's; only its line numbers, and the module's source
and code, change. Siblings draw from a stream derived from the program's final state without drawing from it,
and are left out where they could change the row's code: a tile kernel (its block size is the module's), module
options, or a module-level name the module already defines.
"""

from __future__ import annotations

import ast
import dataclasses
import random
import re
from collections.abc import Callable

from builder.grammar.policy import POLICIES
from builder.grammar.program import Program, split_imports
from builder.rng import derive_rng

_ANY_IMPORT = "from typing import Any"


def module_names(source: str) -> set[str]:
    """The names a module's top level defines: functions, classes, assigned constants."""
    out: set[str] = set()
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, ast.Assign):
            out.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return out


def _identifiers(source: str) -> set[str]:
    return set(re.findall(r"[A-Za-z_]\w*", source))


def _standalone(program: Program) -> bool:
    """A program that shares a module without changing another's code, or having its own changed."""
    return not program.block_dim and "wp.set_module_options" not in program.source


def with_siblings(program: Program, rng: random.Random, draw: Callable[[random.Random], Program]) -> Program:
    """``program`` as the last kernel of a module holding sibling kernels first (``Odds.module_siblings``,
    ``Policy.siblings``), each drawn by ``draw`` from a stream of its own; else ``program`` itself."""
    pol = POLICIES[program.category]
    side = derive_rng("siblings", rng.getstate())
    if not _standalone(program) or side.random() >= pol.odds.module_siblings:
        return program
    # a name one kernel defines at module level may be nowhere else in the module, not even as another's local
    # (Warp resolves a name it cannot place among a function's locals in the module)
    defined, used = module_names(program.source), _identifiers(program.source)
    kept: list[tuple[Program, set[str]]] = []
    for j in range(side.randint(*pol.siblings)):
        sibling = draw(derive_rng("sibling", j, side.getrandbits(64)))
        names, words = module_names(sibling.source), _identifiers(sibling.source)
        if _standalone(sibling) and not names & used and not defined & words:
            kept.append((sibling, names))
            defined |= names
            used |= words
    if not kept:
        return program
    uses_any, parts = False, []
    for p in [s for s, _ in kept] + [program]:
        imports, rest = split_imports(p.source)
        uses_any |= _ANY_IMPORT in imports
        parts.append(rest.rstrip("\n"))
    imports = f"{_ANY_IMPORT}\n\nimport warp as wp" if uses_any else "import warp as wp"
    source = "\n\n\n".join([imports, *parts]) + "\n"
    extra = tuple(sorted(set().union(*(names for _, names in kept))))
    own_at = len(source) - len(parts[-1]) - 1
    return dataclasses.replace(program, source=source, module_names=extra, own_at=own_at)


def units(source: str) -> list[str]:
    """The programs a module was assembled from (``with_siblings`` undone): each top-level kernel with what stands
    between it and the kernel before it (its constants, structs and helpers), under the module's imports; what
    follows the last kernel stays with it. A module of one kernel (or not Python) is one unit, itself."""
    imports, rest = split_imports(source)
    try:
        body = ast.parse(rest).body
    except SyntaxError:
        return [source]
    ends = [
        n.end_lineno
        for n in body
        if isinstance(n, ast.FunctionDef) and any(ast.unparse(d).startswith("wp.kernel") for d in n.decorator_list)
    ]
    if len(ends) < 2:
        return [source]
    lines = rest.splitlines(keepends=True)
    head = "\n".join(imports) + "\n\n\n"
    starts = [0, *ends[:-1]]
    out = [head + "".join(lines[a:b]).strip("\n") + "\n" for a, b in zip(starts, ends)]
    out[-1] = head + "".join(lines[starts[-1] :]).strip("\n") + "\n"
    return out
