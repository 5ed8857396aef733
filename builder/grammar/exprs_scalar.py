"""Scalar producers: float and int arithmetic, Warp math builtins, conditions."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from builder.grammar import wtypes as T
from builder.grammar.exprs_linalg import reduce_to_float
from builder.grammar.wtypes import E, WType, fmt_float, lit, mag
from builder.rng import pick

if TYPE_CHECKING:
    from builder.grammar.exprs import ExprGen


def _clip_iv(lo: float, hi: float) -> tuple[float, float]:
    return (max(lo, -1e12), min(hi, 1e12))


# name -> (operand guard, result interval as a function of the guarded operand interval)
UNARY = {
    "sin": (None, lambda iv: (-1.0, 1.0)),
    "cos": (None, lambda iv: (-1.0, 1.0)),
    "tanh": (None, lambda iv: (-1.0, 1.0)),
    "atan": (None, lambda iv: (-1.571, 1.571)),
    "erf": (None, lambda iv: (-1.0, 1.0)),
    "erfc": (None, lambda iv: (0.0, 2.0)),
    "abs": (None, T.iv_abs),
    "floor": (None, lambda iv: (math.floor(iv[0]), math.floor(iv[1]))),
    "ceil": (None, lambda iv: (math.ceil(iv[0]), math.ceil(iv[1]))),
    "round": (None, lambda iv: (round(iv[0]) - 1, round(iv[1]) + 1)),
    "rint": (None, lambda iv: (round(iv[0]) - 1, round(iv[1]) + 1)),
    "trunc": (None, lambda iv: (math.trunc(iv[0]), math.trunc(iv[1]))),
    "frac": (None, lambda iv: (-1.0, 1.0)),
    "sign": (None, lambda iv: (-1.0 if iv[0] < 0 else 1.0, 1.0 if iv[1] >= 0 else -1.0)),
    "step": (None, lambda iv: (0.0 if iv[1] >= 0 else 1.0, 1.0 if iv[0] < 0 else 0.0)),
    "nonzero": (None, lambda iv: (0.0 if iv[0] <= 0 <= iv[1] else 1.0, 1.0)),
    "degrees": (None, lambda iv: (iv[0] * 57.3, iv[1] * 57.3)),
    "radians": (None, lambda iv: (iv[0] / 57.2, iv[1] / 57.2)),
    "exp": (("bounded", 8.0), lambda iv: (math.exp(iv[0]), math.exp(iv[1]))),
    "sinh": (("bounded", 4.0), lambda iv: (math.sinh(iv[0]), math.sinh(iv[1]))),
    "cosh": (("bounded", 4.0), lambda iv: (1.0, math.cosh(mag(iv)))),
    "tan": (("bounded", 1.2), lambda iv: (-2.6, 2.6)),
    "asin": (("bounded", 0.95), lambda iv: (-1.26, 1.26)),
    "erfinv": (("bounded", 0.9), lambda iv: (-1.17, 1.17)),
    "acos": (("bounded", 0.95), lambda iv: (0.0, 2.9)),
    "sqrt": (("positive", 0.01), lambda iv: (0.0, math.sqrt(iv[1]))),
    "cbrt": (("positive", 0.01), lambda iv: (0.0, iv[1] ** (1.0 / 3.0))),
    "log": (("positive", 0.01), lambda iv: (math.log(iv[0]), math.log(iv[1]))),
    "log2": (("positive", 0.01), lambda iv: (math.log2(iv[0]), math.log2(iv[1]))),
    "log10": (("positive", 0.01), lambda iv: (math.log10(iv[0]), math.log10(iv[1]))),
}


def _guard(g: ExprGen, e: E, guard) -> E:
    if guard is None:
        return e
    kind, val = guard
    return g.bounded(e, val) if kind == "bounded" else g.positive(e, val)


def unary(g: ExprGen, t: WType, depth: int) -> E:
    name = g.rng.choice(sorted(UNARY))
    guard, result = UNARY[name]
    a = _guard(g, g.gen(t, depth - 1), guard)
    iv = _clip_iv(*result(a.iv))
    # sign() of a positive value, say, is the same for every thread
    return E(f"wp.{name}({a.code})", t, iv, a.varies and iv[0] != iv[1])


def binop(g: ExprGen, t: WType, depth: int) -> E:
    a, b = g.pair(t, depth - 1)
    op = g.rng.choice("+-*/")
    if op == "/":
        if not (b.iv[0] > 0.05 or b.iv[1] < -0.05):
            b = g.positive(b, 1.0)
        lo_b = min(abs(b.iv[0]), abs(b.iv[1]))
        return E(f"({a.code} / {b.code})", t, T.sym(mag(a.iv) / lo_b), a.varies or b.varies)
    iv = {"+": T.iv_add, "-": T.iv_sub, "*": T.iv_mul}[op](a.iv, b.iv)
    return E(f"({a.code} {op} {b.code})", t, iv, a.varies or b.varies)


def binary_math(g: ExprGen, t: WType, depth: int) -> E:
    rng = g.rng
    a, b = g.pair(t, depth - 1)
    v = a.varies or b.varies
    kind = rng.choice(["min", "max", "atan2", "pow", "copysign", "mod", "lerp", "clamp", "smoothstep", "hypot"])
    if kind in ("min", "max"):
        f = min if kind == "min" else max
        return E(f"wp.{kind}({a.code}, {b.code})", t, (f(a.iv[0], b.iv[0]), f(a.iv[1], b.iv[1])), v)
    if kind == "atan2":
        return E(f"wp.atan2({a.code}, {g.positive(b, 0.1).code})", t, (-1.571, 1.571), v)
    if kind == "pow":
        base = g.bounded(g.positive(a, 0.1), 8.0) if mag(a.iv) > 8.0 or a.iv[0] < 0.1 else a
        if base.iv[0] < 0.1:
            base = g.positive(base, 0.1)
        e = rng.choice([0.5, 1.5, 2.0, 3.0, -0.5, -1.0])
        expo = lit(t, e)
        vals = [base.iv[0] ** e, base.iv[1] ** e]
        return E(f"wp.pow({base.code}, {expo})", t, (min(vals), max(vals)), base.varies)
    if kind == "copysign":
        return E(f"wp.copysign({a.code}, {b.code})", t, T.sym(mag(a.iv)), v)
    if kind == "mod":
        d = rng.choice([1.0, 2.0, 3.0, 6.283])
        return E(f"wp.mod({a.code}, {lit(t, d)})", t, T.sym(d), a.varies)
    if kind == "lerp":
        s = g.fit(g.gen(t, depth - 1), (0.0, 1.0))
        return E(f"wp.lerp({a.code}, {b.code}, {s.code})", t, T.iv_union(a.iv, b.iv), v or s.varies)
    if kind == "clamp":
        lo = rng.choice([-2.0, -1.0, 0.0, -0.5])
        hi = lo + rng.choice([1.0, 2.0, 4.0])
        saturated = a.iv[1] <= lo or a.iv[0] >= hi
        return E(f"wp.clamp({a.code}, {lit(t, lo)}, {lit(t, hi)})", t, (lo, hi), a.varies and not saturated)
    if kind == "smoothstep":
        lo = rng.choice([-1.0, 0.0, 0.5])
        return E(f"wp.smoothstep({lit(t, lo)}, {lit(t, lo + 2.0)}, {a.code})", t, (0.0, 1.0), a.varies)
    # hypot, written out the way kernels usually do it; leaves, because each appears twice
    a, b = g.leaf(t), g.leaf(t)
    return E(
        f"wp.sqrt({a.code} * {a.code} + {b.code} * {b.code} + {lit(t, 0.01)})",
        t,
        (0.0, math.sqrt(mag(a.iv) ** 2 + mag(b.iv) ** 2 + 0.01)),
        v,
    )


def convert(g: ExprGen, t: WType, depth: int) -> E:
    others = [s for s in g.policy.scalar_types() if s != t and s.kind == "scalar"]
    if not others:
        return g.leaf(t)
    src = g.rng.choice(others)
    a = g.gen(src, depth - 1)
    if a.iv[0] == a.iv[1] and not a.varies:
        # converting a constant (`wp.int64(0.1)`) teaches nothing and makes clang warn
        return g.leaf(t)
    if t.is_int and src.is_float:
        a = g.bounded(a, 1000.0) if mag(a.iv) > 1000.0 else a
    if t == T.U32 and a.iv[0] < 0:
        a = E(f"wp.abs({a.code})", src, T.iv_abs(a.iv), a.varies)
    ctor = "float" if t == T.F32 and g.rng.random() < 0.3 else t.ctor
    lo, hi = a.iv
    if t.is_int:
        lo, hi = math.floor(lo) - 1, math.ceil(hi) + 1
    return E(f"{ctor}({a.code})", t, (lo, hi), a.varies)


def select(g: ExprGen, t: WType, depth: int) -> E:
    c = g.cond(depth - 1)
    a, b = g.gen(t, depth - 1), g.gen(t, depth - 1)
    # the condition alone does not count as variation: it may be true for every thread
    return E(f"wp.where({c.code}, {a.code}, {b.code})", t, T.iv_union(a.iv, b.iv), a.varies or b.varies)


def random_float(g: ExprGen, t: WType, depth: int) -> E:
    s = g.scope.rand_state
    kind = g.rng.choice(["randf", "randf_range", "randn", "noise", "pnoise"])
    if kind == "randf":
        return E(f"wp.randf({s})", t, (0.0, 1.0), True)
    if kind == "randf_range":
        lo = g.rng.choice([-1.0, 0.0, 0.5])
        return E(f"wp.randf({s}, {lit(t, lo)}, {lit(t, lo + 2.0)})", t, (lo, lo + 2.0), True)
    if kind == "randn":
        return E(f"wp.randn({s})", t, (-6.0, 6.0), True)
    x = g.gen(t, depth - 1)
    if kind == "noise":
        return E(f"wp.noise({s}, {x.code})", t, (-1.0, 1.0), True)
    return E(f"wp.pnoise({s}, {x.code}, {g.rng.choice([2, 4, 8])})", t, (-1.0, 1.0), True)


def float_expr(g: ExprGen, t: WType, depth: int) -> E:
    has_linalg = t == T.F32 and any(x.kind != "scalar" for x in g.policy.types())
    options = [
        (g.w("binop"), lambda: binop(g, t, depth)),
        (g.w("math"), lambda: unary(g, t, depth)),
        (g.w("math2"), lambda: binary_math(g, t, depth)),
        (g.w("convert"), lambda: convert(g, t, depth)),
        (g.w("select"), lambda: select(g, t, depth)),
        (g.w("linalg") if has_linalg else 0.0, lambda: reduce_to_float(g, depth)),
        (g.w("random") if g.scope.rand_state and t == T.F32 else 0.0, lambda: random_float(g, t, depth)),
        (g.w("call") if any(f.ret == t for f in g.funcs) else 0.0, lambda: g.call(t, depth)),
    ]
    return pick(g.rng, options)


def int_expr(g: ExprGen, t: WType, depth: int) -> E:
    rng = g.rng

    def arith() -> E:
        a, b = g.pair(t, depth - 1)
        ops = "+*" if t == T.U32 else "+-*"
        op = rng.choice(ops)
        if op == "*":
            b = g.literal(t, 1, 7)
        iv = {"+": T.iv_add, "-": T.iv_sub, "*": T.iv_mul}[op](a.iv, b.iv)
        return E(f"({a.code} {op} {b.code})", t, iv, a.varies or b.varies)

    def divmod_() -> E:
        a = g.gen(t, depth - 1)
        d = rng.randint(2, 9)
        if rng.random() < 0.5:
            return E(f"({a.code} % {lit(t, d)})", t, (-(d - 1) if a.iv[0] < 0 else 0, d - 1), a.varies)
        return E(f"({a.code} // {lit(t, d)})", t, (math.floor(a.iv[0] / d), math.ceil(a.iv[1] / d)), a.varies)

    def bits() -> E:
        a = g.gen(t, depth - 1)
        if a.iv[0] < 0:
            a = E(f"wp.abs({a.code})", t, T.iv_abs(a.iv), a.varies)
        op = rng.choice(["&", "|", "^", ">>", "<<"] + (["~"] if t != T.U32 else []))
        if op == "~":  # two's complement: ~a == -a - 1
            return E(f"(~{a.code})", t, (-a.iv[1] - 1, -a.iv[0] - 1), a.varies)
        if op == ">>":
            return E(f"({a.code} >> {lit(t, rng.randint(1, 3))})", t, (0, a.iv[1]), a.varies)
        if op == "<<":
            a = E(f"({a.code} % {lit(t, 256)})", t, (0, 255), a.varies) if a.iv[1] > 255 else a
            return E(f"({a.code} << {lit(t, rng.randint(1, 3))})", t, (0, a.iv[1] * 8), a.varies)
        m = rng.choice([1, 3, 7, 15, 31, 255])
        hi = m if op == "&" else a.iv[1] + m
        return E(f"({a.code} {op} {lit(t, m)})", t, (0, max(hi, a.iv[1]) + m), a.varies)

    def minmax() -> E:
        a, b = g.pair(t, depth - 1)
        k = rng.choice(["min", "max", "clamp", "abs"])
        v = a.varies or b.varies
        if k == "abs":
            return E(f"wp.abs({a.code})", t, T.iv_abs(a.iv), a.varies)
        if k == "clamp":
            hi = rng.randint(4, 64)
            return E(f"wp.clamp({a.code}, {lit(t, 0)}, {lit(t, hi)})", t, (0, hi), a.varies)
        f = min if k == "min" else max
        return E(f"wp.{k}({a.code}, {b.code})", t, (f(a.iv[0], b.iv[0]), f(a.iv[1], b.iv[1])), v)

    def randi() -> E:
        hi = rng.randint(4, 100)
        return E(f"wp.randi({g.scope.rand_state}, 0, {hi})", t, (0, hi), True)

    options = [
        (g.w("binop"), arith),
        (g.w("binop") * 0.6, divmod_),
        (g.w("bits"), bits),
        (g.w("math2") * 0.5 + 0.2, minmax),
        (g.w("convert") * 0.5, lambda: convert(g, t, depth)),
        (g.w("random") if g.scope.rand_state and t == T.I32 else 0.0, randi),
        (g.w("call") if any(f.ret == t for f in g.funcs) else 0.0, lambda: g.call(t, depth)),
    ]
    return pick(rng, options)


def cond_expr(g: ExprGen, depth: int) -> E:
    rng = g.rng
    types = [s for s in g.policy.scalar_types()]
    t = rng.choice(types)
    a = g.gen(t, max(depth - 1, 0))
    if not a.varies:
        a = g.varying(a)
    lo, hi = _pivot_window(a.iv)
    if t.is_int:
        pivot = rng.randint(math.ceil(lo), math.floor(hi)) if math.ceil(lo) <= math.floor(hi) else 0
        b = E(lit(t, pivot), t, (pivot, pivot))
    elif rng.random() < 0.5:
        mid = (lo + hi) / 2.0
        b = E(lit(t, float(fmt_float(mid))), t, (mid, mid))
    else:
        b = g.gen(t, max(depth - 1, 0))
    op = rng.choice(["<", ">", "<=", ">="] + (["!=", "=="] if t.is_int else []))
    c = E(f"{a.code} {op} {b.code}", T.BOOL, (0, 1), True)
    r = rng.random()
    if r < 0.12 and depth > 0:
        other = cond_expr(g, depth - 1)
        return E(f"({c.code}) {rng.choice(['and', 'or'])} ({other.code})", T.BOOL, (0, 1), True)
    if r < 0.17:
        return E(f"not ({c.code})", T.BOOL, (0, 1), True)
    return c


def _pivot_window(iv: tuple[float, float]) -> tuple[float, float]:
    """Where a comparison's constant goes: inside ``iv`` (or the comparison is constant) and, where ``iv``
    allows, within [-100, 100] so literals stay short."""
    lo, hi = max(iv[0], -100.0), min(iv[1], 100.0)
    if lo <= hi:
        return lo, hi
    if iv[0] > 100.0:  # the whole range lies above the window: take its low end
        return iv[0], min(iv[1], iv[0] + 200.0)
    return max(iv[0], iv[1] - 200.0), iv[1]
