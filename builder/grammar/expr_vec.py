"""Vector producers (float32 components): sums, scalings, constructors, builtins, selects and curl noise.

``vec_expr`` picks a form by the policy's weights; each form is a function of
(g, t, depth, vary). The builtins (``_func``) are one table from a kind to the
function that writes it, so which kinds a program may use is decided in one
place (``_func_kinds``) from the types its policy allows.
"""

from __future__ import annotations

from collections.abc import Callable

from builder.grammar import wtypes as T
from builder.grammar.operands import ctor_name, has_type, split_vary
from builder.grammar.producer import Producer
from builder.grammar.wtypes import ADD, MUL, UNARY, E, WType, fmt_float, mag
from builder.rng import choose


def vec_expr(g: Producer, t: WType, depth: int, vary: bool) -> E:
    p, n = g.p, t.n
    forms: list[tuple[float, Callable[[Producer, WType, int, bool], E]]] = [
        (p.w_random * 0.3 if g.k.rand_state and n in (2, 3) else 0.0, _curl),
        (p.w_binop, _arith),
        (p.w_binop, _scale),
        (p.w_math * 0.6, _construct),
        (p.w_math * 1.5, _func),
        (p.w_where * 0.5, _select),
        (0.0 if g.k.helper else p.w_call, lambda g, t, depth, vary: g.call(t, depth, vary)),
    ]
    return choose(g.rng, forms)(g, t, depth, vary)


def _arith(g: Producer, t: WType, depth: int, vary: bool) -> E:
    va, vb = split_vary(g, vary)
    a = g.expr(t, depth - 1, va)
    b = g.expr(t, depth - 1, vb, avoid=a.code)
    op = g.rng.choice("+-")
    atoms = g.k.atoms(a.code)
    if atoms and atoms == g.k.atoms(b.code):  # a - a and a + (-a) are zero whatever the spelling
        return E(f"wp.cw_mul({a.code}, {b.code})", t, T.sym(mag(a.iv) * mag(b.iv)), a.varies or b.varies)
    return E(T.sum_code(a.at(ADD), op, b), t, T.sym(mag(a.iv) + mag(b.iv)), a.varies or b.varies, ADD)


def _scale(g: Producer, t: WType, depth: int, vary: bool) -> E:
    va, vs = split_vary(g, vary)
    a = g.expr(t, depth - 1, va)
    s = g.expr(T.F32, depth - 1, vs)
    varies = a.varies or s.varies
    if g.rng.random() < g.p.odds.vector_divided:
        s = g.nonzero(s)
        lo = min(abs(s.iv[0]), abs(s.iv[1]))
        return E(f"{a.at(MUL)} / {s.at(MUL + 1)}", t, T.sym(mag(a.iv) / lo), varies, MUL)
    iv = T.sym(mag(a.iv) * mag(s.iv))
    if mag(iv) > T.FLOAT_CAP:
        s = g.bounded(s, 2.0)
        iv = T.sym(mag(a.iv) * 2.0)
    code = f"{a.at(MUL)} * {s.at(MUL)}" if g.rng.random() < g.p.odds.vector_first else f"{s.at(MUL)} * {a.at(MUL)}"
    return E(code, t, iv, varies, MUL)


def _construct(g: Producer, t: WType, depth: int, vary: bool) -> E:
    rng, n = g.rng, t.n
    k = rng.randrange(n) if vary else -1
    parts = [
        g.expr(T.F32, min(depth - 1, 1), i == k)
        if rng.random() < g.p.odds.vector_part_expr or i == k
        else g.literal(T.F32)
        for i in range(n)
    ]
    b = max(mag(p.iv) for p in parts)
    return E(f"{ctor_name(g, t)}({', '.join(p.code for p in parts)})", t, T.sym(b), any(p.varies for p in parts))


def _select(g: Producer, t: WType, depth: int, vary: bool) -> E:
    c = g.cond(0)
    a = g.expr(t, depth - 1, vary)
    b = g.expr(t, depth - 1, False, avoid=a.code)
    return E(f"wp.where({c.code}, {a.code}, {b.code})", t, T.sym(max(mag(a.iv), mag(b.iv))), a.varies)


def _curl(g: Producer, t: WType, depth: int, vary: bool) -> E:
    """The curl of a noise field: a divergence-free velocity at the thread's point."""
    a = g.expr(t, depth - 1, True)
    return E(f"wp.curlnoise({g.k.noise()}, {a.code})", t, T.sym(4.0), True)


# ---------------------------------------------------------------------------------------------- builtins
def _func_kinds(g: Producer, n: int) -> list[str]:
    """The builtins a vector of ``n`` components may come from, repeated by weight."""
    kinds = ["normalize", "cw_mul", "cw_div", "lerp", "neg"] + (["cross", "cross"] if n == 3 else [])
    if n == 3 and has_type(g, T.QUAT):
        kinds += ["quat_rotate", "quat_rotate", "quat_rotate_inv"]
    if n == 3 and has_type(g, T.TRANSFORM):
        kinds += ["transform_point", "transform_point", "transform_vector", "translation"]
    if has_type(g, T.MAT[n]):
        kinds += ["matvec", "matvec"]
    return kinds


def _func(g: Producer, t: WType, depth: int, vary: bool) -> E:
    kind = g.rng.choice(_func_kinds(g, t.n))
    va, vb = split_vary(g, vary)  # drawn for every kind, so later draws do not depend on which
    return _FUNCS[kind](g, t, depth - 1, vary, (va, vb), kind)


Split = tuple[bool, bool]


def _normalize(g: Producer, t: WType, d: int, vary: bool, split: Split, kind: str) -> E:
    a = g.expr(t, d, vary)
    return E(f"wp.normalize({a.code})", t, (-1.0, 1.0), a.varies)


def _neg(g: Producer, t: WType, d: int, vary: bool, split: Split, kind: str) -> E:
    a = g.expr(t, d, vary)
    return E(f"-{a.at(UNARY)}", t, a.iv, a.varies, UNARY)


def _cw_div(g: Producer, t: WType, d: int, vary: bool, split: Split, kind: str) -> E:
    """Component-wise by a positive scale (cell sizes, extents)."""
    a = g.expr(t, d, vary)
    sizes = [g.positive(g.leaf(T.F32), 0.5) for _ in range(t.n)]
    den = E(f"{t.spelling}({', '.join(s.code for s in sizes)})", t, (0.5, 4.0))
    lo = min(s.iv[0] for s in sizes)
    return E(f"wp.cw_div({a.code}, {den.code})", t, T.sym(mag(a.iv) / lo), a.varies)


def _product(g: Producer, t: WType, d: int, vary: bool, split: Split, kind: str) -> E:
    """wp.cw_mul or wp.cross; a cross of operands computed from the same inputs may be parallel (zero)."""
    a = g.expr(t, d, split[0])
    b = g.expr(t, d, split[1], avoid=a.code)
    atoms = g.k.atoms(a.code)
    if kind == "cross" and atoms and atoms == g.k.atoms(b.code):  # cross(s * p, p) is 0
        kind = "cw_mul"
    f = 2.0 if kind == "cross" else 1.0
    return E(f"wp.{kind}({a.code}, {b.code})", t, T.sym(f * mag(a.iv) * mag(b.iv)), a.varies or b.varies)


def _lerp(g: Producer, t: WType, d: int, vary: bool, split: Split, kind: str) -> E:
    a = g.expr(t, d, vary)
    b = g.expr(t, d, False, avoid=a.code)
    s = g.rng.choice((0.25, 0.5, 0.1, 0.75))
    return E(f"wp.lerp({b.code}, {a.code}, {fmt_float(s)})", t, T.sym(max(mag(a.iv), mag(b.iv))), a.varies)


def _rotate(g: Producer, t: WType, d: int, vary: bool, split: Split, kind: str) -> E:
    q = g.expr(T.QUAT, d, split[0])
    a = g.expr(t, d, split[1])
    return E(f"wp.{kind}({q.code}, {a.code})", t, T.sym(1.75 * mag(a.iv)), q.varies or a.varies)


def _matvec(g: Producer, t: WType, d: int, vary: bool, split: Split, kind: str) -> E:
    m = g.expr(T.MAT[t.n], d, split[0])
    a = g.expr(t, d, split[1])
    iv = T.sym(t.n * mag(m.iv) * mag(a.iv))
    if g.rng.random() < g.p.odds.matvec_wp_mul:  # the spelling older Warp code uses for a matrix-vector product
        return E(f"wp.mul({m.code}, {a.code})", t, iv, m.varies or a.varies)
    return E(f"{m.at(MUL)} @ {a.at(MUL + 1)}", t, iv, m.varies or a.varies, MUL)


def _transform(g: Producer, t: WType, d: int, vary: bool, split: Split, kind: str) -> E:
    """wp.transform_point / transform_vector, or the transform's translation."""
    x = g.expr(T.TRANSFORM, d, split[0])
    if kind == "translation":
        return E(f"wp.transform_get_translation({x.code})", t, x.iv, x.varies)
    a = g.expr(t, d, split[1])
    return E(f"wp.{kind}({x.code}, {a.code})", t, T.sym(1.75 * mag(a.iv) + mag(x.iv)), x.varies or a.varies)


_FUNCS: dict[str, Callable[[Producer, WType, int, bool, Split, str], E]] = {
    "normalize": _normalize,
    "neg": _neg,
    "cw_div": _cw_div,
    "cw_mul": _product,
    "cross": _product,
    "lerp": _lerp,
    "quat_rotate": _rotate,
    "quat_rotate_inv": _rotate,
    "matvec": _matvec,
    "transform_point": _transform,
    "transform_vector": _transform,
    "translation": _transform,
}
