"""What the expression producers need from the generator that calls them, as a protocol at the grammar's bottom.

``expr.Gen`` dispatches to the scalar, linear-algebra, control-flow and helper producers (``expr_scalar``,
``expr_linalg``, ``flow``, ``helpers``), and they recurse through the generator they are handed, as Hypothesis
passes a recursive strategy in: typed against this protocol, they never import ``expr``, so the grammar has no
import circle.
"""

from __future__ import annotations

import random
from typing import Protocol

from builder.grammar.kernel import KernelCtx
from builder.grammar.policy import Policy
from builder.grammar.wtypes import E, WType


class Producer(Protocol):
    k: KernelCtx  # the kernel being written: scope, names, bindings
    rng: random.Random
    p: Policy
    funcs: list  # helper signatures (helpers.Helper) a call may use

    def expr(self, t: WType, depth: int, vary: bool = False, avoid: str | tuple[str, ...] = "") -> E: ...

    def leaf(self, t: WType, vary: bool = False, avoid: str | tuple[str, ...] = "") -> E: ...

    def call(self, t: WType, depth: int, vary: bool) -> E: ...

    def cond(self, depth: int = 1) -> E: ...

    def literal(self, t: WType, nonunit: bool = False) -> E: ...

    def positive(self, e: E, floor: float = 0.01) -> E: ...

    def nonzero(self, e: E) -> E: ...

    def bounded(self, e: E, b: float) -> E: ...

    def capped(self, e: E) -> E: ...

    def child(self, k: KernelCtx) -> Producer:
        """A generator of the same kind for another body (a helper function's), sharing nothing but ``k``."""
        ...
