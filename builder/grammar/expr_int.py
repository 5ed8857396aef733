"""Integer producers: arithmetic, division by an odd prime, bit operations and float-to-int conversions.

``int_expr`` picks a form by the policy's weights; each form is a function of (g, t, depth, vary), like the
float and vector producers. Every form keeps the value's interval, so an index or a mask stays in range.
"""

from __future__ import annotations

import math

from builder.grammar import wtypes as T
from builder.grammar.expr_scalar import minmax, where
from builder.grammar.operands import same_inputs, split_vary
from builder.grammar.producer import Producer
from builder.grammar.wtypes import ADD, BAND, BOR, BXOR, MUL, SHIFT, E, WType, fmt_float, lit, mag
from builder.rng import choose


def int_expr(g: Producer, t: WType, depth: int, vary: bool) -> E:
    p = g.p
    forms = [
        (p.w_binop, _arith),
        (p.w_binop * 0.5, _divmod),
        (p.w_bits, _bits),
        (p.w_minmax, minmax),
        (p.w_convert, _from_float),
        (p.w_where * 0.5, where),
    ]
    return g.capped(choose(g.rng, forms)(g, t, depth, vary))


def _arith(g: Producer, t: WType, depth: int, vary: bool) -> E:
    rng = g.rng
    op = rng.choice("+-*" if t != T.U32 else "+*")
    va, vb = (vary, False) if op == "*" else split_vary(g, vary)
    a = g.expr(t, depth - 1, va)
    b = (
        g.literal(t)
        if op == "*" or not vb and rng.random() < g.p.odds.int_literal_operand
        else g.expr(t, depth - 1, vb, avoid=a.code)
    )
    if op == "-" and same_inputs(g, a, b):
        op = "+"
    prec = MUL if op == "*" else ADD
    iv = {"+": T.iv_add, "-": T.iv_sub, "*": T.iv_mul}[op](a.iv, b.iv)
    return E(f"{a.at(prec)} {op} {b.at(prec + 1)}", t, iv, a.varies or b.varies, prec)


def _divmod(g: Producer, t: WType, depth: int, vary: bool) -> E:
    a = g.expr(t, depth - 1, vary)
    if a.iv[0] < 0:
        a = E(f"wp.abs({a.code})", t, T.iv_abs(a.iv), a.varies)
    if a.iv[1] < 4:
        return a
    # an odd prime: a multiple of a power of two (the int literals) is never a multiple of it
    d = g.rng.choice([p for p in (3, 5, 7) if p <= a.iv[1] // 2] or [3])
    if g.rng.random() < g.p.odds.int_modulo:
        return E(f"{a.at(MUL)} % {lit(t, d)}", t, (0, d - 1), a.varies, MUL)
    return E(f"{a.at(MUL)} // {lit(t, d)}", t, (0, math.ceil(a.iv[1] / d)), a.varies, MUL)


def _bits(g: Producer, t: WType, depth: int, vary: bool) -> E:
    rng = g.rng
    # on a value read, not on another mask: (x | 1) & 1 is 1 for every thread
    a = g.leaf(t, True)
    if a.iv[0] < 0:
        a = E(f"wp.abs({a.code})", t, T.iv_abs(a.iv), a.varies)
    # no left shifts: a later mask of the low bits would be zero for every thread
    op = rng.choice(("&", "|", "^", ">>"))
    if op == ">>" and a.iv[1] >= 8:
        s = rng.choice([s for s in (1, 2, 3) if int(a.iv[1]) >> s >= 4] or [1])
        return E(f"{a.at(SHIFT + 1)} >> {lit(t, s)}", t, (0, int(a.iv[1]) >> s), a.varies, SHIFT)
    op = "^" if op == ">>" else op
    m = rng.choice([m for m in (1, 3, 7, 15, 31, 63) if 2 * m <= a.iv[1]] or [1])
    hi = m if op == "&" else int(a.iv[1]) | m
    prec = {"&": BAND, "^": BXOR, "|": BOR}[op]
    return E(f"{a.at(prec)} {op} {lit(t, m)}", t, (0, max(hi, m)), a.varies, prec)


def _from_float(g: Producer, t: WType, depth: int, vary: bool) -> E:
    rng = g.rng
    a = g.expr(T.F32, depth - 1, vary)
    s = rng.choice((4.0, 8.0, 10.0, 16.0))
    rnd = rng.choice(("floor", "floor", "ceil", "round"))
    ctor = "int" if rng.random() < g.p.odds.int_ctor_plain else "wp.int32"
    code = f"{ctor}(wp.{rnd}({a.at(MUL)} * {fmt_float(s)}))" if t == T.I32 else f"{t.ctor}({a.at(MUL)} * {s})"
    lo, hi = math.floor(a.iv[0] * s), math.ceil(a.iv[1] * s)
    if t == T.U32 and a.iv[0] < 0:
        code, lo, hi = f"{t.ctor}(wp.abs({a.code}) * {s})", 0, math.ceil(mag(a.iv) * s) + 1
    return E(code, t, (lo, hi), a.varies)
