"""A generated program: its source and everything needed to run it.

The row records a flattened view of this (argument names, types, roles and
shapes); the executor uses the object itself, which the generator can always
rebuild from (seed, split, index).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from builder.grammar.scope import ArrayArg
from builder.grammar.wtypes import Interval, WType


@dataclass(frozen=True)
class Param:
    """A non-array kernel argument (scalar, vector or struct), with the values it may take."""

    name: str
    t: WType
    iv: Interval  # an int whose interval is one value is a length the executor passes exactly
    handle: str = ""  # for a uint64: "mesh", "hash_grid" or "volume", built by the executor


@dataclass
class Program:
    category: str
    kernel_name: str
    source: str
    args: list[ArrayArg | Param]  # kernel signature order
    launch_shape: tuple[int, ...]
    structs: dict[str, dict[str, tuple[WType, Interval]]] = field(default_factory=dict)
    func_names: list[str] = field(default_factory=list)
    struct_names: list[str] = field(default_factory=list)
    block_dim: int = 0  # a tile kernel's threads per block (launched with wp.launch_tiled); 0 for wp.launch
    backward: bool = True  # False: declared @wp.kernel(enable_backward=False), so Warp emits no adjoint
    module_names: tuple[str, ...] = ()  # what the sibling kernels before it define (siblings.with_siblings)
    own_at: int = 0  # where in the source its own code starts, after the siblings (0: the whole source is its own)

    @property
    def own_source(self) -> str:
        """The program's own code: its source without the imports and the sibling kernels before it."""
        return split_imports(self.source[self.own_at :])[1]

    @property
    def module_for_row(self) -> str:
        """``source`` with the sibling kernels' lines left empty (the module's imports kept): the row's kernel
        stays at its lines, so Warp generates the same code for it (line marks included) while no sibling is
        generated. A row's evidence (NVRTC's compile, the CPU build and run) is made from it
        (``sources.drawn.records``, ``warp_backend.verify.cpu_loaded``)."""
        if not self.own_at:
            return self.source
        head = self.source[: self.own_at].splitlines(keepends=True)
        n = 0  # the import block that starts the module (siblings.with_siblings writes it once, first)
        while n < len(head) and (not head[n].strip() or head[n].startswith(("import ", "from "))):
            n += 1
        return "".join(head[:n]) + "\n" * (len(head) - n) + self.source[self.own_at :]

    @property
    def own_module(self) -> str:
        """The program as a module of its own, as it is written without siblings (the imports it needs, its code)."""
        own = self.own_source
        typing = "from typing import Any\n\n" if re.search(r"\bAny\b", own) else ""
        return f"{typing}import warp as wp\n\n\n{own}"

    @property
    def names(self) -> set[str]:
        """Module-level names this program defines (two programs sharing one cannot share a module)."""
        return {self.kernel_name, *self.func_names, *self.struct_names, *self.module_names}

    def arrays(self, *roles: str) -> list[ArrayArg]:
        return [a for a in self.args if isinstance(a, ArrayArg) and (not roles or a.role in roles)]

    def arg_type_strings(self) -> list[str]:
        return [type_string(a) for a in self.args]

    def arg_roles(self) -> list[str]:
        return [a.role if isinstance(a, ArrayArg) else "param" for a in self.args]

    def arg_shapes(self) -> list[list[int]]:
        out = []
        for a in self.args:
            if isinstance(a, ArrayArg):
                out.append(list(a.shape) if a.shape else [a.length] if a.role == "acc" else list(self.launch_shape))
            else:
                out.append([])
        return out


def split_imports(source: str) -> tuple[list[str], str]:
    """(a generated module's import lines, the rest of it): its imports come first, blank lines between."""
    lines = source.splitlines()
    i = 0
    while i < len(lines) and (not lines[i].strip() or lines[i].startswith(("import ", "from "))):
        i += 1
    return [line for line in lines[:i] if line.strip()], "\n".join(lines[i:]).strip("\n") + "\n"


def canonical(t: WType) -> str:
    if t.kind == "scalar":
        return t.scalar
    if t.kind == "struct":
        return t.spelling
    return t.spelling.removeprefix("wp.")


def type_string(a: ArrayArg | Param) -> str:
    """Warp's own spelling of an argument type, e.g. ``array(dtype=vec3, ndim=2)``."""
    if isinstance(a, ArrayArg):
        return f"array(dtype={canonical(a.dtype)}, ndim={a.ndim})"
    return canonical(a.t)
