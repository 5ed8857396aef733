"""Type-tracking scopes: which variables and arrays a statement may use.

A ``Scope`` is a stack of frames; a frame opened for a loop or branch body is
dropped when the body ends, so a variable never leaks out of the block that
declared it (Warp would accept some of those programs, but the interval of a
branch-local value after the branch is not known, so the grammar forbids it).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from builder.grammar.wtypes import Interval, WType


@dataclass
class Var:
    name: str
    t: WType
    iv: Interval
    mutable: bool = True  # False for loop counters, tid indices and kernel params
    varies: bool = True  # depends on the thread index (keeps outputs non-constant)
    value: str = ""  # ident of the value it holds; reset to its own name when it is assigned again


@dataclass(frozen=True)
class ArrayArg:
    """A kernel array argument, as the row records it and the executor allocates it."""

    name: str
    dtype: WType
    ndim: int
    role: str  # "in" | "out" | "acc" (atomic target) | "index"
    iv: Interval  # values an input holds; ignored for outputs
    length: int = 0  # only for 1-D "acc" arrays, whose size is not the launch size
    op: str = ""  # atomic operation an "acc" array receives
    init: float = 0.0  # value an "acc" array starts from (the identity of ``op``)


@dataclass
class Scope:
    frames: list[list[Var]] = field(default_factory=lambda: [[]])
    arrays: list[ArrayArg] = field(default_factory=list)
    tid: tuple[str, ...] = ()
    rand_state: str | None = None
    int_params: tuple[str, ...] = ()  # int kernel parameters usable as loop bounds
    vary_source: tuple[str, tuple[float, float]] = ("1.0", (1.0, 1.0))  # float32 that differs per thread/call
    used_names: set[str] = field(default_factory=set)

    def push(self) -> None:
        self.frames.append([])

    def pop(self) -> None:
        self.frames.pop()

    def add(self, var: Var) -> Var:
        self.frames[-1].append(var)
        self.used_names.add(var.name)
        return var

    def visible(self) -> list[Var]:
        return [v for frame in self.frames for v in frame]

    def of_type(self, t: WType) -> list[Var]:
        return [v for v in self.visible() if v.t == t]

    def outer_mutables(self, t: WType | None = None) -> list[Var]:
        """Mutable variables declared outside the innermost frame (loop-carried candidates)."""
        return [v for frame in self.frames[:-1] for v in frame if v.mutable and (t is None or v.t == t)]

    def inputs(self, dtype: WType | None = None) -> list[ArrayArg]:
        return [a for a in self.arrays if a.role == "in" and (dtype is None or a.dtype == dtype)]

    def fresh(self, rng: random.Random, stem: str) -> str:
        """A new identifier built from ``stem``; numbered only when the stem is taken."""
        if stem not in self.used_names:
            self.used_names.add(stem)
            return stem
        k = 1
        while f"{stem}{k}" in self.used_names:
            k += 1
        self.used_names.add(f"{stem}{k}")
        return f"{stem}{k}"
