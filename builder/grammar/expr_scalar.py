"""Scalar producers: arithmetic, Warp math builtins, conversions and conditions.

Each producer passes ``vary`` to one operand, so the result depends on the
thread's data through at least one path.
"""

from __future__ import annotations

import math

from builder.grammar import expr_linalg, flow
from builder.grammar import wtypes as T
from builder.grammar.operands import same_inputs, split_vary
from builder.grammar.producer import Producer
from builder.grammar.wtypes import ADD, AND, CMP, MUL, OR, E, WType, fmt_float, lit, mag
from builder.rng import pick


# name -> (guard, result interval from the guarded operand's); "pos" = positive, ("b", x) = within [-x, x]
def _sampled(fn, lo: float, hi: float) -> tuple[float, float]:
    """The range of ``fn`` over [lo, hi], from 65 samples (tight, so a threshold drawn inside it is met)."""
    if hi - lo > 6.3 and fn in (math.sin, math.cos):
        return (-1.0, 1.0)
    ys = [fn(lo + (hi - lo) * n / 64) for n in range(65)]
    pad = 0.02 * (max(ys) - min(ys)) if fn in (math.sin, math.cos) else 0.0
    return (max(min(ys) - pad, -1.0e12), min(max(ys) + pad, 1.0e12))


def _r(fn):
    return lambda iv: _sampled(fn, iv[0], iv[1])


UNARY_FNS = {
    "sin": (None, _r(math.sin)),
    "cos": (None, _r(math.cos)),
    "tanh": (None, _r(math.tanh)),
    "abs": (None, T.iv_abs),
    "exp": (("b", 4.0), _r(math.exp)),
    "sqrt": (("pos", 0.01), _r(math.sqrt)),
    "log": (("pos", 0.1), _r(math.log)),
    "atan": (None, _r(math.atan)),
    "acos": (("b", 0.95), _r(math.acos)),
    "asin": (("b", 0.95), _r(math.asin)),
}
# how often each appears, roughly as in Warp's own kernels
UNARY_WEIGHTS = {
    "sin": 3,
    "cos": 3,
    "sqrt": 4,
    "abs": 4,
    "exp": 2,
    "tanh": 1,
    "log": 1,
    "atan": 0.5,
    "acos": 0.5,
    "asin": 0.3,
}


def binop(g: Producer, t: WType, depth: int, vary: bool) -> E:
    va, vb = split_vary(g, vary)
    a = g.expr(t, depth - 1, va)
    op = pick(g.rng, [(3.0, lambda: "+"), (2.0, lambda: "-"), (3.0, lambda: "*"), (1.0, lambda: "/")])
    if op in "+-" and not vb and g.rng.random() < g.p.odds.sum_leaf:
        b = g.literal(t) if g.rng.random() < g.p.odds.sum_literal else g.expr(t, 0, avoid=a.code)
    else:
        b = g.expr(t, depth - 1, vb, avoid=a.code)
    same = same_inputs(g, a, b)
    if op in "+-/" and same:  # a - a, a / a and a + (-a) are constants; a * a is not
        op = "*"
    if op == "*" and mag(a.iv) * mag(b.iv) > T.FLOAT_CAP:
        if same:
            b = g.bounded(b, 1.0)
        else:
            op = "+"
    if op == "/":
        b = g.nonzero(b)
        lo = min(abs(b.iv[0]), abs(b.iv[1]))
        return E(f"{a.at(MUL)} / {b.at(MUL + 1)}", t, T.sym(mag(a.iv) / lo), a.varies or b.varies, MUL)
    iv = {"+": T.iv_add, "-": T.iv_sub, "*": T.iv_mul}[op](a.iv, b.iv)
    if op in "+-":
        return E(T.sum_code(a.at(ADD), op, b), t, iv, a.varies or b.varies, ADD)
    return E(f"{a.at(MUL)} * {b.at(MUL)}", t, iv, a.varies or b.varies, MUL)


def unary(g: Producer, t: WType, depth: int, vary: bool) -> E:
    # a function of a constant is a constant: the operand always comes from the thread's data
    a = g.expr(t, depth - 1, True)
    names = [n for n in UNARY_FNS if not (n == "abs" and a.iv[0] >= 0)]  # abs of a non-negative is itself
    name = pick(g.rng, [(UNARY_WEIGHTS[n], lambda n=n: n) for n in names])
    guard, result = UNARY_FNS[name]
    if guard == ("pos", 0.01) or guard == ("pos", 0.1):
        a = g.positive(a, guard[1])
    elif guard is not None:
        a = g.bounded(a, guard[1])
    return E(f"wp.{name}({a.code})", t, result(a.iv), a.varies)


def minmax(g: Producer, t: WType, depth: int, vary: bool) -> E:
    a = g.expr(t, depth - 1, vary)
    lo, hi = a.iv
    kind = g.rng.choice(("min", "max", "clamp", "clamp"))
    if kind == "clamp" and hi - lo > (4 if t.is_int else 1e-3):
        c0 = lo + (hi - lo) * g.rng.choice((0.0, 0.1, 0.25))
        c1 = hi - (hi - lo) * g.rng.choice((0.0, 0.1, 0.25))
        c0, c1 = (math.ceil(c0), math.floor(c1)) if t.is_int else (float(fmt_float(c0)), float(fmt_float(c1)))
        if c0 < c1:
            return E(f"wp.clamp({a.code}, {lit(t, c0)}, {lit(t, c1)})", t, (c0, c1), a.varies)
    if (
        g.rng.random() < g.p.odds.threshold_inside and hi - lo > 1e-3
    ):  # a threshold inside the range, so both sides occur
        pivot = lo + (hi - lo) * g.rng.choice((0.25, 0.5, 0.75))
        b = E(lit(t, round(pivot) if t.is_int else float(fmt_float(pivot))), t, (pivot, pivot))
    else:  # another per-thread value: whichever wins, the result still varies
        b = g.expr(t, depth - 1, True, avoid=a.code)
    f = min if kind == "min" else max
    iv = (f(lo, b.iv[0]), f(hi, b.iv[1]))
    return E(f"wp.{'min' if kind == 'min' else 'max'}({a.code}, {b.code})", t, iv, a.varies)


def where(g: Producer, t: WType, depth: int, vary: bool) -> E:
    c = g.cond(depth - 1)
    va, vb = split_vary(g, vary)
    a = g.expr(t, depth - 1, va or vary)
    b = g.expr(t, depth - 1, vb, avoid=a.code)
    return E(f"wp.where({c.code}, {a.code}, {b.code})", t, T.iv_union(a.iv, b.iv), a.varies or b.varies)


def blend(g: Producer, t: WType, depth: int, vary: bool) -> E:
    a = g.expr(t, depth - 1, vary)
    kind = g.rng.choice(("lerp", "smoothstep", "pow", "atan2", "signed"))
    if kind == "signed":  # a signed square root: keeps the sign, compresses the magnitude
        # the offset keeps the derivative finite at 0
        code = f"wp.sign({a.code}) * wp.sqrt(wp.abs({a.code}) + {lit(t, 0.01)})"
        return E(code, t, T.sym((mag(a.iv) + 0.01) ** 0.5), a.varies, MUL)
    if kind == "lerp":
        b = g.expr(t, depth - 1, False, avoid=a.code)
        unit = [p for p in g.k.params(t) if 0 <= p.iv[0] and p.iv[1] <= 1]
        s = (
            g.rng.choice(unit)
            if unit and g.rng.random() < g.p.odds.lerp_by_param
            else E(lit(t, g.rng.choice((0.25, 0.5, 0.1))), t, (0, 1))
        )
        return E(f"wp.lerp({b.code}, {a.code}, {s.code})", t, T.iv_union(a.iv, b.iv), a.varies)
    if kind == "smoothstep":
        lo, hi = a.iv
        if not 1e-3 < hi - lo <= 4.0:  # a wide bound is loose: the edges would miss most values
            return a
        e0, e1 = float(fmt_float(lo + 0.1 * (hi - lo))), float(fmt_float(hi - 0.1 * (hi - lo)))
        if e0 >= e1:
            return a
        return E(f"wp.smoothstep({lit(t, e0)}, {lit(t, e1)}, {a.code})", t, (0.0, 1.0), a.varies)
    if kind == "pow":
        base = g.positive(g.bounded(a, 8.0), 0.1)
        e = g.rng.choice((2.0, 3.0, 0.5, 1.5))
        vals = (base.iv[0] ** e, base.iv[1] ** e)
        return E(f"wp.pow({base.code}, {lit(t, e)})", t, (min(vals), max(vals)), a.varies)
    b = g.expr(t, depth - 1, False, avoid=a.code)
    if same_inputs(g, a, b):  # atan2(x, |x|) is a constant: shift the second operand off proportion
        b = E(f"{b.at(ADD)} + {lit(t, 1.0)}", t, (b.iv[0] + 1.0, b.iv[1] + 1.0), b.varies, ADD)
    corners = [math.atan2(y, x) for y in a.iv for x in b.iv]
    iv = (min(corners), max(corners)) if b.iv[0] > 0 or a.iv[0] > 0 or a.iv[1] < 0 else (-3.1416, 3.1416)
    return E(f"wp.atan2({a.code}, {b.code})", t, iv, a.varies)


def convert(g: Producer, t: WType, depth: int, vary: bool) -> E:
    if t == T.F32:
        src = g.rng.choice([s for s in g.p.types() if s.kind == "scalar" and s != t] or [T.I32])
        a = g.expr(src, depth - 1, True)  # converting a literal is writing another literal
        return E(f"float({a.code})", t, a.iv, a.varies)
    a = g.expr(T.F32, depth - 1, True)
    return E(f"{t.ctor}({a.code})", t, a.iv, a.varies)


def random_float(g: Producer, t: WType, depth: int, vary: bool) -> E:
    s = g.k.rand_state
    kind = g.rng.choice(("randf", "randf", "range", "randn", "noise"))
    if kind == "noise":  # a smooth noise field, sampled at a point the thread computes
        p = g.expr(g.rng.choice((t, T.VEC[2], T.VEC[3])), depth - 1, True)
        return E(f"wp.noise({g.k.noise()}, {p.code})", t, (-1.0, 1.0), True)
    if kind == "randf":
        return E(f"wp.randf({s})", t, (0.0, 1.0), True)
    if kind == "range":
        lo = g.rng.choice((-1.0, 0.0, 0.5))
        return E(f"wp.randf({s}, {lit(t, lo)}, {lit(t, lo + 2.0)})", t, (lo, lo + 2.0), True)
    return E(f"wp.randn({s})", t, (-6.0, 6.0), True)


def float_expr(g: Producer, t: WType, depth: int, vary: bool) -> E:
    p = g.p
    linalg = t == T.F32 and any(x.kind in ("vec", "mat", "quat") for x in p.types())
    options = [
        (p.w_binop, lambda: binop(g, t, depth, vary)),
        (p.w_math, lambda: unary(g, t, depth, vary)),
        (p.w_minmax, lambda: minmax(g, t, depth, vary)),
        (p.w_where, lambda: where(g, t, depth, vary)),
        (p.w_math * 0.4, lambda: blend(g, t, depth, vary)),
        (
            p.w_convert if any(s.kind == "scalar" and s != t for s in p.types()) or t != T.F32 else 0.0,
            lambda: convert(g, t, depth, vary),
        ),
        (p.w_reduce if linalg else 0.0, lambda: expr_linalg.to_float(g, depth, vary)),
        (p.w_random if g.k.rand_state and t == T.F32 else 0.0, lambda: random_float(g, t, depth, vary)),
        (p.w_call if t == T.F32 and not g.k.helper else 0.0, lambda: g.call(t, depth, vary)),
        (
            p.w_loop if g.k.loop_depth < p.max_loops and t == T.F32 and not g.k.helper else 0.0,
            lambda: flow.loop_sum(g, t, depth, vary),
        ),
        (p.w_branch if g.k.loop_depth < 2 else 0.0, lambda: flow.branch(g, t, depth, vary)),
    ]
    return g.capped(pick(g.rng, options))


def cond_expr(g: Producer, depth: int) -> E:
    rng = g.rng
    t = T.I32 if rng.random() < g.p.odds.cond_int and not g.k.helper else T.F32
    a = g.expr(t, max(depth - 1, 0), True)
    lo, hi = max(a.iv[0], -100.0), min(a.iv[1], 100.0)
    pivot = t.is_int or rng.random() < g.p.odds.cond_pivot or lo >= hi
    if pivot:  # a threshold inside the operand's range, so the test goes both ways
        mid = lo + (hi - lo) * rng.choice((0.25, 0.5, 0.75))
        b = E(lit(t, round(mid) if t.is_int else float(fmt_float(mid))), t, (mid, mid))
    else:  # another per-thread value
        b = g.expr(t, 0, True, avoid=a.code)
    # no == / != on data: one value out of a hundred may be met by no thread, and the test is then constant
    op = rng.choice(("<", ">", "<=", ">="))
    c = E(f"{a.at(CMP + 1)} {op} {b.at(CMP + 1)}", T.BOOL, (0, 1), True, CMP)
    if (
        depth > 0 and t.is_float and rng.random() < g.p.odds.cond_isfinite
    ):  # the finiteness test numerical code guards with
        return E(f"wp.isfinite({a.code}) and {c.at(AND + 1)}", T.BOOL, (0, 1), True, AND)
    if depth > 0 and rng.random() < g.p.odds.cond_compound:
        other = cond_expr(g, 0)
        op = rng.choice(("and", "or"))
        prec = AND if op == "and" else OR
        return E(f"{c.at(prec)} {op} {other.at(prec + 1)}", T.BOOL, (0, 1), True, prec)
    return c
