"""Kernel arguments and the locals a statement may read.

``Local`` is a name the kernel body bound; ``Frames`` is the stack of blocks
open at the current statement, so a name bound inside a loop or branch body
is never read after the body ends.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from builder.grammar.wtypes import Interval, WType


@dataclass(frozen=True)
class ArrayArg:
    """A kernel array argument, as the row records it and the executor allocates it.

    ``role``: "in" (read), "inout" (read, then written in place), "out" (written), "acc" (atomic target) or
    "index" (integers that index other arrays). ``shape`` is empty for arrays shaped like the launch grid.
    ``fill`` tells the executor how to fill an input: "" uniform in ``iv``, "offsets" a CSR row-offset
    array (non-decreasing from 0), "mask" zeros and ones, "permutation" distinct integers in ``iv`` (indices
    that threads store through, so no two threads store one element).
    """

    name: str
    dtype: WType
    ndim: int
    role: str
    iv: Interval
    length: int = 0  # only for 1-D "acc" arrays, whose size is not the launch size
    op: str = ""  # atomic operation an "acc" array receives
    init: float = 0.0  # value an "acc" array starts from (the identity of ``op``)
    shape: tuple[int, ...] = ()
    fill: str = ""


@dataclass
class Local:
    name: str
    t: WType
    iv: Interval
    varies: bool = True  # differs between threads


@dataclass
class Frames:
    stack: list[list[Local]] = field(default_factory=lambda: [[]])

    def push(self) -> None:
        self.stack.append([])

    def pop(self) -> None:
        self.stack.pop()

    def add(self, v: Local, outer: bool = False) -> Local:
        (self.stack[0] if outer else self.stack[-1]).append(v)
        return v

    def of_type(self, t: WType) -> list[Local]:
        return [v for frame in self.stack for v in frame if v.t == t]
