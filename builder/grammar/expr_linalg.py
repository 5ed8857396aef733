"""Matrix, quaternion and transform producers (float32 components), and the dispatch by kind (vectors: expr_vec).

Quaternions stay unit length by construction (every producer returns a
rotation), so rotating, inverting and composing them is always defined.
"""

from __future__ import annotations

from builder.grammar import wtypes as T
from builder.grammar.expr_vec import vec_expr
from builder.grammar.operands import ctor_name, has_type, split_vary
from builder.grammar.producer import Producer
from builder.grammar.wtypes import ADD, ATOM, MUL, E, WType, fmt_float, mag


def mat_expr(g: Producer, t: WType, depth: int, vary: bool) -> E:
    rng, d, n = g.rng, depth - 1, t.n
    v = T.VEC[n]
    # columns (edge vectors, frame axes) are how Warp code mostly assembles a matrix
    kinds = ["outer", "transpose", "scale", "add", "skew" if n == 3 else "outer", "inverse", "identity", "diag"]
    kinds += ["cols", "cols"]
    if n <= 3:
        kinds.append("ctor")
    if n == 3 and has_type(g, T.QUAT):
        kinds += ["quat_to_matrix", "quat_to_matrix"]
    k = rng.choice(kinds)
    va, vb = split_vary(g, vary)
    if k == "outer":
        a, b = g.expr(v, d, va), g.expr(v, d, vb)
        return E(f"wp.outer({a.code}, {b.code})", t, T.sym(mag(a.iv) * mag(b.iv)), a.varies or b.varies)
    if k == "cols":
        k_vary = rng.randrange(n) if vary else -1
        cols = [g.expr(v, max(d, 0), i == k_vary) for i in range(n)]
        how = rng.choice(("cols", "rows"))
        b = max(mag(c.iv) for c in cols)
        code = f"wp.matrix_from_{how}({', '.join(c.code for c in cols)})"
        return E(code, t, T.sym(b), any(c.varies for c in cols))
    if k == "ctor":  # row by row, as kernels write small matrices out
        c = rng.randrange(n * n) if vary else -1
        parts = [
            g.expr(T.F32, 0, j == c) if rng.random() < g.p.odds.matrix_part_expr or j == c else g.literal(T.F32)
            for j in range(n * n)
        ]
        b = max(mag(p.iv) for p in parts)
        return E(f"{ctor_name(g, t)}({', '.join(p.code for p in parts)})", t, T.sym(b), any(p.varies for p in parts))
    if k == "diag":
        a = g.expr(v, d, vary)
        return E(f"wp.diag({a.code})", t, T.sym(mag(a.iv)), a.varies)
    if k == "skew":
        a = g.expr(v, d, vary)
        return E(f"wp.skew({a.code})", t, T.sym(mag(a.iv)), a.varies)
    if k == "quat_to_matrix":
        q = g.expr(T.QUAT, d, vary)
        return E(f"wp.quat_to_matrix({q.code})", t, (-1.0, 1.0), q.varies)
    if k == "transpose":
        m = g.expr(t, d, vary)
        return E(f"wp.transpose({m.code})", t, m.iv, m.varies)
    if k == "scale":
        m, s = g.expr(t, d, va), g.bounded(g.expr(T.F32, d, vb), 4.0)
        return E(f"{m.at(MUL)} * {s.at(MUL)}", t, T.sym(mag(m.iv) * mag(s.iv)), m.varies or s.varies, MUL)
    if k == "add":
        a = g.expr(t, d, va)
        b = g.expr(t, d, vb, avoid=a.code)
        return E(f"{a.at(ADD)} + {b.at(ADD)}", t, T.sym(mag(a.iv) + mag(b.iv)), a.varies or b.varies, ADD)
    m = g.expr(t, d, vary)
    # identity plus a small multiple of m stays diagonally dominant, so its inverse exists and is bounded
    s = float(fmt_float(0.5 / (n * max(mag(m.iv), 1.0))))
    ident = f"wp.identity(n={n}, dtype=float)"
    if k == "identity":
        return E(f"{ident} + {m.at(MUL)} * {fmt_float(s)}", t, T.sym(1.5), m.varies, ADD)
    return E(f"wp.inverse({ident} + {m.at(MUL)} * {fmt_float(s)})", t, T.sym(2.0), m.varies)


def quat_expr(g: Producer, t: WType, depth: int, vary: bool) -> E:
    rng, d = g.rng, depth - 1
    kinds = ["axis_angle", "axis_angle", "mul", "inverse", "rpy", "euler", "ctor"]
    if has_type(g, T.TRANSFORM):
        kinds.append("rotation")
    k = rng.choice(kinds)
    va, vb = split_vary(g, vary)
    if k == "axis_angle":
        axis = g.expr(T.VEC[3], d, va)
        angle = g.expr(T.F32, d, vb)
        return E(
            f"wp.quat_from_axis_angle(wp.normalize({axis.code}), {angle.code})",
            t,
            (-1.0, 1.0),
            axis.varies or angle.varies,
        )
    if k == "ctor":  # four components, normalized into a rotation
        axis = g.expr(T.VEC[3], d, vary)
        w = g.positive(g.leaf(T.F32), 0.5)
        return E(f"wp.normalize({ctor_name(g, t)}({axis.code}, {w.code}))", t, (-1.0, 1.0), axis.varies)
    if k == "euler":  # three angles and the axis order they rotate about
        angles = g.expr(T.VEC[3], d, vary)
        axes = rng.choice(((0, 1, 2), (0, 1, 2), (2, 1, 0), (2, 0, 2), (1, 0, 2)))
        return E(f"wp.quat_from_euler({angles.code}, {', '.join(map(str, axes))})", t, (-1.0, 1.0), angles.varies)
    if k == "mul":
        a = g.expr(t, d, va)
        b = g.expr(t, d, vb, avoid=a.code)
        return E(f"{a.at(MUL)} * {b.at(MUL)}", t, (-1.0, 1.0), a.varies or b.varies, MUL)
    if k == "inverse":
        a = g.expr(t, d, vary)
        return E(f"wp.quat_inverse({a.code})", t, (-1.0, 1.0), a.varies)
    if k == "rotation":
        x = g.expr(T.TRANSFORM, d, vary)
        return E(f"wp.transform_get_rotation({x.code})", t, (-1.0, 1.0), x.varies)
    parts = [g.bounded(g.expr(T.F32, 0, vary and i == 0), 3.2) for i in range(3)]
    return E(f"wp.quat_rpy({', '.join(p.code for p in parts)})", t, (-1.0, 1.0), any(p.varies for p in parts))


def xform_expr(g: Producer, t: WType, depth: int, vary: bool) -> E:
    rng, d = g.rng, depth - 1
    k = rng.choice(("make", "make", "multiply", "inverse"))
    va, vb = split_vary(g, vary)
    if k == "make":
        p = g.expr(T.VEC[3], d, va)
        q = g.expr(T.QUAT, d, vb)
        return E(f"wp.transform({p.code}, {q.code})", t, p.iv, p.varies or q.varies)
    if k == "multiply":
        a = g.expr(t, d, va)
        b = g.expr(t, d, vb, avoid=a.code)
        return E(
            f"wp.transform_multiply({a.code}, {b.code})", t, T.sym(2 * (mag(a.iv) + mag(b.iv))), a.varies or b.varies
        )
    a = g.expr(t, d, vary)
    return E(f"wp.transform_inverse({a.code})", t, T.sym(2 * mag(a.iv)), a.varies)


def linalg_expr(g: Producer, t: WType, depth: int, vary: bool) -> E:
    if t.kind == "vec":
        return vec_expr(g, t, depth, vary)
    if t.kind == "mat":
        return mat_expr(g, t, depth, vary)
    if t.kind == "quat":
        return quat_expr(g, t, depth, vary)
    return xform_expr(g, t, depth, vary)


def to_float(g: Producer, depth: int, vary: bool) -> E:
    """A float32 read off a vector or matrix: dot, length, a component, a trace..."""
    rng, d = g.rng, depth - 1
    vecs = [x for x in g.p.types() if x.kind == "vec"]
    mats = [x for x in g.p.types() if x.kind == "mat"]
    if mats and (not vecs or rng.random() < g.p.odds.float_from_matrix):
        m = g.expr(rng.choice(mats), d, vary)
        k = rng.choice(("ddot", "trace", "determinant", "entry"))
        b = mag(m.iv)
        n = m.t.n
        if k == "ddot":
            return E(f"wp.ddot({m.code}, {m.code})", T.F32, (0.0, n * n * b * b), m.varies)
        if k == "trace":
            return E(f"wp.trace({m.code})", T.F32, T.sym(n * b), m.varies)
        if k == "determinant" and n * b**n < T.FLOAT_CAP:
            return E(f"wp.determinant({m.code})", T.F32, T.sym(6.0 * b**n), m.varies)
        return E(f"{m.at(ATOM)}[{rng.randrange(n)}, {rng.randrange(n)}]", T.F32, m.iv, m.varies)
    t = rng.choice(vecs or [T.VEC[3]])
    k = rng.choice(("dot", "dot", "length", "length", "length_sq", "component"))
    va, vb = split_vary(g, vary)
    a = g.expr(t, d, va or vary)
    b = mag(a.iv)
    if k == "dot":
        c = g.expr(t, d, vb, avoid=a.code)
        return E(f"wp.dot({a.code}, {c.code})", T.F32, T.sym(t.n * b * mag(c.iv)), a.varies or c.varies)
    if k == "length":
        return E(f"wp.length({a.code})", T.F32, (0.0, b * t.n**0.5), a.varies)
    if k == "length_sq":
        return E(f"wp.length_sq({a.code})", T.F32, (0.0, t.n * b * b), a.varies)
    comp = rng.randrange(t.n)
    code = f"{a.at(ATOM)}[{comp}]"
    return E(code, T.F32, a.iv, a.varies)
