"""Typed expression grammar.

``ExprGen.gen(t, depth)`` returns an expression of Warp type ``t`` together with
an interval that bounds its value. Every producer states what its operands must
satisfy; an operand that might not satisfy it is repaired (``guard``/``squash``),
so no generated expression divides by zero, takes the log of a negative or
overflows, and nothing is ever retried.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from builder.grammar import exprs_linalg, exprs_scalar
from builder.grammar import wtypes as T
from builder.grammar.policy import Policy
from builder.grammar.scope import ArrayArg, Scope, Var
from builder.grammar.wtypes import E, Interval, WType, fmt_float, lit, mag
from builder.rng import pick


@dataclass(frozen=True)
class FuncSig:
    name: str
    params: tuple[tuple[str, WType, Interval], ...]
    ret: WType
    ret_iv: Interval


NICE = (0.5, 2.0, 0.25, 1.5, 3.0, 0.1, 0.75, 1.0, 4.0, 0.2, 0.01, 10.0, 0.3, 0.9, 5.0)


class ExprGen:
    def __init__(self, rng: random.Random, policy: Policy, scope: Scope, funcs: list[FuncSig], structs: dict):
        self.rng = rng
        self.policy = policy
        self.scope = scope
        self.funcs = funcs
        self.structs = structs  # struct name -> {field: (WType, Interval)}

    # ------------------------------------------------------------------ helpers
    def w(self, key: str) -> float:
        return self.policy.weight(key)

    def literal(self, t: WType, lo: float = -5.0, hi: float = 5.0) -> E:
        rng = self.rng
        if t.is_int:
            lo_i = 0 if t == T.U32 else int(lo)
            v = rng.randint(max(lo_i, 0) if t == T.U32 else lo_i, max(int(hi), lo_i + 1))
            return E(lit(t, v), t, (v, v))
        v = rng.choice(NICE) if rng.random() < 0.5 else round(rng.uniform(lo, hi), 2) or 1.0
        if lo < 0 and v > 0 and rng.random() < 0.3:
            v = -v
        v = float(fmt_float(v))
        return E(lit(t, v), t, (v, v))

    def squash(self, e: E) -> E:
        """Bring a too-wide value back into range (a repair, not a retry)."""
        if e.t.is_int:
            if mag(e.iv) <= T.INT_CAP:
                return e
            return E(f"({e.code} % {lit(e.t, 97)})", e.t, (-96, 96) if e.t != T.U32 else (0, 96), e.varies)
        if mag(e.iv) <= T.FLOAT_CAP:
            return e
        if e.t.is_float:
            return E(f"wp.sin({e.code})", e.t, (-1.0, 1.0), e.varies)
        if e.t.kind == "vec":
            return E(f"wp.normalize({e.code})", e.t, (-1.0, 1.0), e.varies)
        scale = 10.0 ** -math.ceil(math.log10(mag(e.iv) / 10.0))
        return E(f"({e.code} * {fmt_float(scale)})", e.t, T.sym(mag(e.iv) * scale), e.varies)

    def fit(self, e: E, iv: Interval) -> E:
        """Make ``e`` lie within ``iv`` (for helper-function arguments and struct fields).

        A clamp is used only where most of ``e``'s range survives it: clamping a range that lies
        mostly outside ``iv`` would make a thread-dependent value constant. Otherwise ``e`` is
        mapped onto ``iv`` (affine for floats, modulo for ints), which keeps it varying."""
        if iv[0] <= e.iv[0] and e.iv[1] <= iv[1]:
            return e
        if e.t.is_float or e.t.is_int:
            width, span = e.iv[1] - e.iv[0], iv[1] - iv[0]
            if width <= 0 or span <= 0 or T.iv_overlap(e.iv, iv) >= 0.5 * min(width, span):
                return E(f"wp.clamp({e.code}, {lit(e.t, iv[0])}, {lit(e.t, iv[1])})", e.t, iv, e.varies)
            if e.t.is_int:  # e - lo(e) >= 0, so the remainder is in [0, period)
                lo, period = math.ceil(iv[0]), math.floor(iv[1]) - math.ceil(iv[0]) + 1
                code = f"({lit(e.t, lo)} + ({e.code} - {lit(e.t, math.floor(e.iv[0]))}) % {lit(e.t, period)})"
                return E(code, e.t, (lo, lo + period - 1), e.varies)
            scale = span / width
            mapped = f"({e.code} - {lit(e.t, e.iv[0])}) * {lit(e.t, scale)} + {lit(e.t, iv[0])}"
            # the clamp only absorbs rounding at the ends of the range
            return E(f"wp.clamp({mapped}, {lit(e.t, iv[0])}, {lit(e.t, iv[1])})", e.t, iv, e.varies)
        if e.t.kind == "vec":
            b = min(abs(iv[0]), abs(iv[1]))
            return E(f"(wp.normalize({e.code}) * {fmt_float(b)})", e.t, T.sym(b), e.varies)
        return e  # quats are unit; transforms/mats are only passed with the default range

    def positive(self, e: E, floor: float = 0.01) -> E:
        """Guard an operand that must be >= ``floor`` (sqrt, log, pow base, divisor)."""
        if e.iv[0] >= floor:
            return e
        add = 1.0 if floor >= 0.1 else floor
        return E(f"(wp.abs({e.code}) + {lit(e.t, add)})", e.t, (add, mag(e.iv) + add), e.varies)

    def bounded(self, e: E, b: float) -> E:
        """Guard an operand that must stay within [-b, b] (exp, sinh, asin...)."""
        if mag(e.iv) <= b:
            return e
        mostly_inside = T.iv_overlap(e.iv, (-b, b)) >= 0.5 * (e.iv[1] - e.iv[0])
        if mag(e.iv) <= 4 * b and mostly_inside and self.rng.random() < 0.5:
            return E(f"wp.clamp({e.code}, {lit(e.t, -b)}, {lit(e.t, b)})", e.t, T.sym(b), e.varies)
        return E(f"(wp.sin({e.code}) * {lit(e.t, b)})", e.t, T.sym(b), e.varies)

    # -------------------------------------------------------------------- leaves
    def leaf(self, t: WType) -> E:
        options: list[tuple[float, object]] = []
        vars_ = self.scope.of_type(t)
        if vars_:
            options.append((4.0, lambda: self._var(vars_)))
        inputs = self.scope.inputs(t)
        if inputs:
            options.append((3.0, lambda: self.array_read(inputs)))
        fields = self.field_reads(t)
        if fields:
            options.append((2.0, lambda: self.rng.choice(fields)))
        if t.kind == "scalar":
            options.append((1.0, lambda: self.literal(t)))
        if t.is_int and self.scope.tid:
            options.append(
                (
                    1.5,
                    lambda: (
                        E(self.rng.choice(self.scope.tid), T.I32, (0, 255), True)
                        if t == T.I32
                        else E(f"{t.ctor}({self.rng.choice(self.scope.tid)})", t, (0, 255), True)
                    ),
                )
            )
        if not options:
            return self.build(t, 0)
        return pick(self.rng, options)

    def _var(self, vars_: list[Var]) -> E:
        varying = [v for v in vars_ if v.varies]
        v = self.rng.choice(varying if varying and self.rng.random() < 0.8 else vars_)
        return E(v.name, v.t, v.iv, v.varies, v.value or v.name)

    def index_exprs(self, name: str) -> list[str]:
        """In-bounds indices into an input array shaped like the launch grid."""
        tid = self.scope.tid
        own = ", ".join(tid)
        out = [own]
        if len(tid) == 1:
            i = tid[0]
            out += [f"({i} + 1) % {name}.shape[0]", f"wp.max({i} - 1, 0)", f"wp.min({i} + 1, {name}.shape[0] - 1)"]
            loops = [v for v in self.scope.visible() if not v.mutable and v.t == T.I32 and v.name not in tid]
            # C++ % keeps the sign, so a counter that can be negative (stencil offsets) is shifted by the
            # length first: otherwise tid 0 reads index -1 and the adjoint writes there
            out += [
                f"({i} + {v.name}) % {name}.shape[0]"
                if v.iv[0] >= 0
                else f"({i} + {v.name} + {name}.shape[0]) % {name}.shape[0]"
                for v in loops
            ]
            idx = [a for a in self.scope.arrays if a.role == "index"]
            out += [f"{a.name}[{i}] % {name}.shape[0]" for a in idx]
        else:
            last = len(tid) - 1
            shifted = list(tid)
            shifted[last] = f"({tid[last]} + 1) % {name}.shape[{last}]"
            out.append(", ".join(shifted))
            flipped = list(tid)
            flipped[0] = f"{name}.shape[0] - 1 - {tid[0]}"
            out.append(", ".join(flipped))
        return out

    def array_read(self, inputs: list[ArrayArg]) -> E:
        """One element of one of ``inputs`` at an in-bounds index (only the chosen array's indices are built)."""
        a = self.rng.choice(inputs)
        idx = self.rng.choice(self.index_exprs(a.name))
        return E(f"{a.name}[{idx}]", a.dtype, a.iv, True)

    def field_reads(self, t: WType) -> list[E]:
        reads = []
        for v in self.scope.visible():
            if v.t.kind == "struct":
                for fname, (ft, fiv) in self.structs[v.t.spelling].items():
                    if ft == t:
                        reads.append(E(f"{v.name}.{fname}", t, fiv, v.varies))
        return reads

    # ------------------------------------------------------------------ dispatch
    def gen(self, t: WType, depth: int) -> E:
        if depth <= 0 or self.rng.random() < self.w("leaf") / (1.0 + self.w("leaf")):
            return self.leaf(t)
        return self.build(t, depth)

    def build(self, t: WType, depth: int) -> E:
        if t.is_float:
            e = exprs_scalar.float_expr(self, t, depth)
        elif t.is_int:
            e = exprs_scalar.int_expr(self, t, depth)
        elif t.kind == "bool":
            e = exprs_scalar.cond_expr(self, depth)
        else:
            e = exprs_linalg.linalg_expr(self, t, depth)
        return self.squash(e)

    def cond(self, depth: int = 1) -> E:
        return exprs_scalar.cond_expr(self, depth)

    def call(self, t: WType, depth: int) -> E | None:
        sigs = [f for f in self.funcs if f.ret == t]
        if not sigs:
            return None
        f = self.rng.choice(sigs)
        args = [self.fit(self.varying(self.gen(pt, depth - 1)), piv) for _, pt, piv in f.params]
        return E(f"{f.name}({', '.join(a.code for a in args)})", t, f.ret_iv, any(a.varies for a in args))

    def tid_term(self, t: WType, source: tuple[str, Interval] | None = None) -> E:
        """An expression of type ``t`` that always differs between threads (or between calls), built from
        ``source`` (a float32 expression and its interval) or else from the scope's thread index."""
        src, (lo, hi) = source or self.scope.vary_source
        if t == T.F32:
            return E(src, t, (lo, hi), True)
        if t.is_float:
            return E(f"{t.ctor}({src})", t, (lo, hi), True)
        if t.is_int and self.scope.tid and source is None:
            tid = " + ".join(self.scope.tid)
            return E(f"({tid})" if t == T.I32 else f"{t.ctor}({tid})", t, (0, 765), True)
        if t.is_int:
            inner = f"wp.abs({src})" if t == T.U32 else src
            b = mag((lo, hi)) * 10.0
            return E(f"{t.ctor}({inner} * 10.0)", t, (0 if t == T.U32 else -b - 1, b + 1), True)
        code = {
            "vec": f"{t.spelling}({src})",
            "mat": f"(wp.identity(n={t.n}, dtype=float) * {src})",
            "quat": f"wp.quat_from_axis_angle(wp.vec3(0.0, 0.0, 1.0), {src})",
            "transform": f"wp.transform(wp.vec3({src}), wp.quat_identity())",
        }[t.kind]
        return E(code, t, T.sym(mag((lo, hi))), True)

    def strong(self, e: E) -> E:
        """For stored values: add a read of an input at the thread's own index (random data, so different per
        thread) that ``e`` does not already contain, so it cannot cancel (``(f - t) + t``), or else a non-linear
        function of the thread index. Always, because static tracking cannot rule out every way a varying
        ``e`` collapses to a constant: aliases cancelling (``tau - phi[i]`` after ``tau = phi[i]``),
        ``wp.normalize`` of a vector whose only varying part is its length, a helper ignoring an argument."""
        own = f"[{', '.join(self.scope.tid)}]"
        term = next((x for x in self.own_reads(e.t, own) if x.code not in e.code), None)
        if term is None:  # no unused input: a non-linear function of the thread index
            tid = " + ".join(self.scope.tid)
            if e.t.is_int:
                code = f"(({tid}) % 13 * 7)"
                term = E(code if e.t == T.I32 else f"{e.t.ctor}{code}", e.t, (0, 84), True)
            else:
                term = self.tid_term(e.t, (f"wp.sin(float({tid}) * 0.37)", (-1.0, 1.0)))
        if e.t.kind in ("quat", "transform"):
            return E(f"({e.code} * {term.code})", e.t, e.iv, True)
        # ``e`` may hold the same read under another name (``h1 = samples[i]``; ``-h1 + samples[i]`` is 0):
        # an unusual weight means only an exact opposite multiple could cancel it
        w = self.rng.choice((3, 5, 7)) if e.t.is_int else self.rng.choice((0.37, 0.61, 1.37))
        weight = lit(e.t, w) if e.t.kind == "scalar" else fmt_float(w)
        weighted = E(f"{_atom(term.code)} * {weight}", e.t, T.iv_mul(term.iv, (w, w)), True)
        return self.squash(E(f"({e.code} + {weighted.code})", e.t, T.iv_add(e.iv, weighted.iv), True))

    def own_reads(self, t: WType, own: str) -> list[E]:
        """Expressions of type ``t`` made from this thread's element of each input array."""
        out = [E(f"{a.name}{own}", t, a.iv, True) for a in self.scope.inputs(t)]
        for a in self.scope.inputs():
            read = f"{a.name}{own}"
            src = (
                {"float64": f"float({read})"}.get(a.dtype.scalar, read)
                if a.dtype.is_float
                else {"vec": f"{read}[0]", "quat": f"{read}[0]", "mat": f"{read}[0, 0]"}.get(a.dtype.kind)
            )
            if src is not None:
                iv = (-1.0, 1.0) if a.dtype.kind == "quat" else a.iv
                out.append(self.tid_term(t, (src, iv)))
        return out

    def pair(self, t: WType, depth: int) -> tuple[E, E]:
        """Two operands that are not the same expression (``x - x`` teaches nothing)."""
        a = self.gen(t, depth)
        for _ in range(3):
            b = self.gen(t, depth)
            if b.ident != a.ident:
                return a, b
        return a, self.tid_term(t)

    def varying(self, e: E) -> E:
        """Make sure a stored value depends on the thread, so outputs are never constant."""
        if e.varies:
            return e
        other = self.leaf(e.t)
        if not other.varies:
            other = self.tid_term(e.t)
        if e.t.kind in ("quat", "transform"):
            return E(f"({e.code} * {other.code})", e.t, e.iv, True)
        return self.squash(E(f"({e.code} + {other.code})", e.t, T.iv_add(e.iv, other.iv), True))


def _atom(code: str) -> str:
    """``code`` parenthesized unless it is already one operand (a name, call, subscript or parenthesis)."""
    depth = 0
    for ch in code:
        depth += ch in "([{"
        depth -= ch in ")]}"
        if depth == 0 and ch == " ":
            return f"({code})"
    return code
