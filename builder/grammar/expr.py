"""Typed expressions, built from the value a store needs back to the reads that feed it.

``Gen.expr(t, depth, vary)`` returns an expression of Warp type ``t`` with an
interval bounding its value. With ``vary`` it depends on this thread's data
(a read at the thread index, or a local computed from one), which is what
makes outputs differ between threads. Leaves are created on demand: a read of
a new input array adds the argument, a new parameter adds it to the
signature, a hoisted sub-expression is bound to a local right before the
statement that uses it; so nothing is written that no store reads.
"""

from __future__ import annotations

import math

from builder.grammar import expr_int, expr_linalg, expr_scalar, helpers
from builder.grammar import names as N
from builder.grammar import wtypes as T
from builder.grammar.kernel import KernelCtx
from builder.grammar.wtypes import ADD, ATOM, MUL, E, WType, fmt_float, lit, mag
from builder.rng import pick

NICE = (0.5, 2.0, 0.25, 1.5, 3.0, 0.1, 0.75, 4.0, 0.2, 0.3, 0.9, 5.0, 10.0, 0.05, 9.81, 0.99, 1.0e-3)
RANGES = {"f": ((-1.0, 1.0), (-2.0, 2.0), (0.1, 2.0), (0.5, 4.0)), "i": ((0, 100), (0, 15), (-50, 50))}


class Gen:
    def __init__(self, k: KernelCtx):
        self.k, self.rng, self.p = k, k.rng, k.p
        self.funcs: list = []  # helper signatures (helpers.Helper) a call may use

    def child(self, k: KernelCtx) -> Gen:
        return Gen(k)

    # ------------------------------------------------------------------ dispatch
    def expr(self, t: WType, depth: int, vary: bool = False, avoid: str | tuple[str, ...] = "") -> E:
        if depth <= 0 or self.rng.random() < self.p.leaf:
            return self.leaf(t, vary, avoid)
        e = self.compose(t, depth, vary)
        if e.prec != ATOM or "(" in e.code:
            if self.rng.random() < self.p.hoist and self.k.unrolled <= 8:
                return self.k.bind(N.stem_for(self.rng, t), e)
        return e

    def compose(self, t: WType, depth: int, vary: bool) -> E:
        if t.is_float:
            return expr_scalar.float_expr(self, t, depth, vary)
        if t.is_int:
            return expr_int.int_expr(self, t, depth, vary)
        return expr_linalg.linalg_expr(self, t, depth, vary)

    def call(self, t: WType, depth: int, vary: bool) -> E:
        e = helpers.call(self, t, depth, vary)
        k = self.k
        if not k.helper and k.unrolled <= 8 and self.rng.random() < self.p.odds.call_bound:
            return k.bind(N.stem_for(self.rng, t), e)  # x = helper(...), as kernels call their functions
        return e

    def cond(self, depth: int = 1) -> E:
        return expr_scalar.cond_expr(self, depth)

    # -------------------------------------------------------------------- leaves
    def leaf(self, t: WType, vary: bool = False, avoid: str | tuple[str, ...] = "") -> E:
        k, p = self.k, self.p
        avoids = (avoid,) if isinstance(avoid, str) else avoid
        local = [v for v in k.frames.of_type(t) if v.name not in avoids and (v.varies or not vary)]
        options = [(p.w_local * (2.0 if vary else 1.0), lambda: self._local(local))] if local else []
        if k.helper:
            if not vary and t.kind == "scalar":
                options.append((p.w_lit, lambda: self.literal(t)))
            if options:
                return pick(self.rng, options)
            if t.kind == "scalar":  # no parameter of this type: convert a float one
                f = self.leaf(T.F32, vary)
                code = f"int({f.code})" if t == T.I32 else f"{t.ctor}({f.code})"
                return E(code, t, (math.floor(f.iv[0]), math.ceil(f.iv[1])), f.varies)
            return self._built(t, vary)
        if self._readable(t):
            options.append((p.w_read, lambda: self.read(t, avoid)))
        if not vary:
            params = [e for e in k.params(t) if e.code not in avoids]
            if params:
                options.append((p.w_param, lambda: self.rng.choice(params)))
            if t.is_float or t.kind == "vec" or (t == T.I32 and not local):
                options.append((p.w_param * 0.5, lambda: self.new_param(t)))
            if t.kind == "scalar" and t != T.U8:
                options.append((p.w_lit, lambda: self.literal(t)))
        if t == T.I32 and k.tid[0] not in avoids:
            options.append((p.w_tid if vary or self.rng.random() < self.p.odds.tid_leaf else 0.0, self.tid))
        if not options:
            return self.read(t, avoid)
        return pick(self.rng, options)

    def _built(self, t: WType, vary: bool) -> E:
        """A helper's value of a type none of its parameters has, built from its float parameters."""
        if t.kind == "vec":
            parts = [self.leaf(T.F32, vary and c == 0) for c in range(t.n)]
            return E(f"{t.spelling}({', '.join(p.code for p in parts)})", t, T.sym(max(mag(p.iv) for p in parts)), vary)
        if t.kind == "mat":
            v = self.leaf(T.VEC[t.n], vary)
            return E(f"wp.diag({v.code})", t, v.iv, v.varies)
        if t.kind == "quat":
            a = self.leaf(T.F32, vary)
            return E(f"wp.quat_from_axis_angle(wp.vec3(0.0, 0.0, 1.0), {a.code})", t, (-1.0, 1.0), a.varies)
        p, q = self.leaf(T.VEC[3], vary), self.leaf(T.QUAT)
        return E(f"wp.transform({p.code}, {q.code})", t, p.iv, p.varies)

    def _readable(self, t: WType) -> bool:
        return t.kind != "struct" and t != T.BOOL and t in self.p.types() or t == T.F32

    def _local(self, local: list) -> E:
        v = self.rng.choice(local)
        return E(v.name, v.t, v.iv, v.varies)

    def tid(self) -> E:
        # the first index: outputs are compared row by row along it, so a value of j alone repeats every row
        i = 0
        return E(self.k.tid[i], T.I32, (0, self.k.shape[i] - 1), True)

    def read(self, t: WType, avoid: str | tuple[str, ...] = "") -> E:
        """This thread's element of an input array of type ``t`` (a new array, or one already read)."""
        k, rng = self.k, self.rng
        avoids = (avoid,) if isinstance(avoid, str) else avoid
        arrays = [
            a
            for a in k.inputs(t)
            if not {a.name, f"{a.name}[{k.own}]", getattr(k.loaded.get(a.name), "name", "")} & set(avoids) - {""}
        ]
        if arrays and rng.random() < self.p.reuse_array:
            a = rng.choice(arrays)
        elif t == T.F32 and rng.random() < self.p.half:
            a = k.array(T.F16, "in", rng.choice(RANGES["f"]))
            return E(f"float({a.name}[{k.own}])", t, a.iv, True)
        else:
            a = k.array(t, "in", self.input_iv(t))
        if a.name in k.loaded or rng.random() < self.p.load_local:
            return k.load(a)
        return E(f"{a.name}[{k.own}]", t, a.iv, True)

    def input_iv(self, t: WType):
        if t.is_int:
            return (0, 255) if t == T.U8 else (0, 100) if t in (T.U32, T.I8) else self.rng.choice(RANGES["i"])
        if t.kind in ("quat", "mat"):
            return (-1.0, 1.0)
        return self.rng.choice(RANGES["f"])

    def new_param(self, t: WType) -> E:
        rng = self.rng
        if t.kind == "vec":
            return self.k.param(t, (-1.0, 1.0), rng.choice(N.PARAMS["v"]))
        if t.is_int:
            return self.k.param(t, (1, 16), rng.choice(N.PARAMS["i"]))
        if rng.random() < self.p.odds.param_positive:
            return self.k.param(t, (0.5, 2.0), rng.choice(N.PARAMS["pos"]))
        return self.k.param(t, rng.choice(((0.1, 1.0), (-1.0, 1.0), (0.5, 2.0))), rng.choice(N.PARAMS["f"]))

    def literal(self, t: WType, nonunit: bool = False) -> E:
        rng = self.rng
        if t.is_int:
            v = rng.choice((2, 4, 8, 16))
            return E(lit(t, v), t, (v, v))
        if rng.random() < self.p.w_const and self.k.loop_depth == 0:
            v = rng.choice(NICE)
            return self.k.const(t, v, rng.choice(("scale", "damping", "eps", "stiffness", "rate", "gain", "k_s")))
        v = rng.choice(NICE) if rng.random() < self.p.odds.nice_literal else round(rng.uniform(0.1, 5.0), 2)
        v = float(fmt_float(v))
        if nonunit and v == 1.0:
            v = 2.0
        return E(lit(t, v), t, (v, v))

    # -------------------------------------------------------------------- guards
    def positive(self, e: E, floor: float = 0.01) -> E:
        """A value >= ``floor`` (sqrt, log, pow base)."""
        if e.iv[0] >= floor:
            return e
        f = lit(e.t, max(floor, 0.01))
        # a clamp from below only on a value read (uniform over its range): a computed value may lie below the
        # floor for every thread
        if e.iv[1] > 4 * floor and e.prec == ATOM and "(" not in e.code:
            return E(f"wp.max({e.code}, {f})", e.t, (floor, e.iv[1]), e.varies)
        return E(f"wp.abs({e.code}) + {f}", e.t, (floor, mag(e.iv) + floor), e.varies, ADD)

    def nonzero(self, e: E) -> E:
        """A divisor bounded away from zero."""
        if e.iv[0] >= 0.1 or e.iv[1] <= -0.1:
            return e
        if e.iv[0] >= 0.0:
            return E(f"wp.max({e.code}, {lit(e.t, 0.1)})", e.t, (0.1, max(e.iv[1], 0.1)), e.varies)
        one = lit(e.t, 1.0)
        return E(f"{one} + {e.at(MUL)} * {e.at(MUL)}", e.t, (1.0, 1.0 + mag(e.iv) ** 2), e.varies, ADD)

    def bounded(self, e: E, b: float) -> E:
        """A value within [-b, b] (exp, asin...)."""
        if mag(e.iv) <= b:
            return e
        if T.iv_overlap(e.iv, (-b, b)) >= 0.4 * (e.iv[1] - e.iv[0]):
            return E(f"wp.clamp({e.code}, {lit(e.t, -b)}, {lit(e.t, b)})", e.t, T.sym(b), e.varies)
        s = b / mag(e.iv)
        return E(f"{e.at(MUL)} * {lit(e.t, float(fmt_float(s)))}", e.t, T.sym(b * 1.01), e.varies, MUL)

    def capped(self, e: E) -> E:
        cap = T.INT_CAP if e.t.is_int else T.FLOAT_CAP
        if mag(e.iv) <= cap or not (e.t.is_int or e.t.is_float):
            return e
        if e.t.is_int:
            m = lit(e.t, 1024)
            return E(f"{e.at(MUL)} % {m}", e.t, (-1023 if e.iv[0] < 0 else 0, 1023), e.varies, MUL)
        return self.bounded(e, 100.0)
