"""Vector, matrix, quaternion and transform producers (float32 components).

Quaternions stay unit length by construction (every producer returns a
rotation), so rotating, inverting and composing them is always defined.
"""

from __future__ import annotations

from builder.grammar import wtypes as T
from builder.grammar.producer import Producer
from builder.grammar.wtypes import ADD, ATOM, MUL, UNARY, E, WType, fmt_float, mag
from builder.rng import pick


def _split(g: Producer, vary: bool) -> tuple[bool, bool]:
    if not vary:
        return False, False
    return (True, False) if g.rng.random() < g.p.odds.vary_left else (False, True)


def _has(g: Producer, t: WType) -> bool:
    return t in g.p.types()


def _ctor(g: Producer, t: WType) -> str:
    """The constructor's name: Warp's float32 types also go by their suffixed aliases (wp.vec3f, wp.mat22f)."""
    return f"{t.spelling}f" if g.rng.random() < g.p.suffixed else t.spelling


def vec_expr(g: Producer, t: WType, depth: int, vary: bool) -> E:
    rng, d, n = g.rng, depth - 1, t.n

    def arith() -> E:
        va, vb = _split(g, vary)
        a = g.expr(t, d, va)
        b = g.expr(t, d, vb, avoid=a.code)
        op = rng.choice("+-")
        atoms = g.k.atoms(a.code)
        if atoms and atoms == g.k.atoms(b.code):  # a - a and a + (-a) are zero whatever the spelling
            iv = T.sym(mag(a.iv) * mag(b.iv))
            return E(f"wp.cw_mul({a.code}, {b.code})", t, iv, a.varies or b.varies)
        return E(T.sum_code(a.at(ADD), op, b), t, T.sym(mag(a.iv) + mag(b.iv)), a.varies or b.varies, ADD)

    def scale() -> E:
        va, vs = _split(g, vary)
        a = g.expr(t, d, va)
        s = g.expr(T.F32, d, vs)
        if rng.random() < g.p.odds.vector_divided:
            s = g.nonzero(s)
            lo = min(abs(s.iv[0]), abs(s.iv[1]))
            return E(f"{a.at(MUL)} / {s.at(MUL + 1)}", t, T.sym(mag(a.iv) / lo), a.varies or s.varies, MUL)
        iv = T.sym(mag(a.iv) * mag(s.iv))
        if mag(iv) > T.FLOAT_CAP:
            s = g.bounded(s, 2.0)
            iv = T.sym(mag(a.iv) * 2.0)
        code = f"{a.at(MUL)} * {s.at(MUL)}" if rng.random() < g.p.odds.vector_first else f"{s.at(MUL)} * {a.at(MUL)}"
        return E(code, t, iv, a.varies or s.varies, MUL)

    def construct() -> E:
        k = rng.randrange(n) if vary else -1
        parts = [
            g.expr(T.F32, min(d, 1), i == k) if rng.random() < g.p.odds.vector_part_expr or i == k else g.literal(T.F32)
            for i in range(n)
        ]
        b = max(mag(p.iv) for p in parts)
        return E(f"{_ctor(g, t)}({', '.join(p.code for p in parts)})", t, T.sym(b), any(p.varies for p in parts))

    def func() -> E:
        kinds = ["normalize", "cw_mul", "cw_div", "lerp", "neg"] + (["cross", "cross"] if n == 3 else [])
        if n == 3 and _has(g, T.QUAT):
            kinds += ["quat_rotate", "quat_rotate", "quat_rotate_inv"]
        if n == 3 and _has(g, T.TRANSFORM):
            kinds += ["transform_point", "transform_point", "transform_vector", "translation"]
        if _has(g, T.MAT[n]):
            kinds += ["matvec", "matvec"]
        k = rng.choice(kinds)
        va, vb = _split(g, vary)
        if k == "normalize":
            a = g.expr(t, d, vary)
            return E(f"wp.normalize({a.code})", t, (-1.0, 1.0), a.varies)
        if k == "neg":
            a = g.expr(t, d, vary)
            return E(f"-{a.at(UNARY)}", t, a.iv, a.varies, UNARY)
        if k == "cw_div":  # component-wise by a positive scale (cell sizes, extents)
            a = g.expr(t, d, vary)
            sizes = [g.positive(g.leaf(T.F32), 0.5) for _ in range(n)]
            den = E(f"{t.spelling}({', '.join(s.code for s in sizes)})", t, (0.5, 4.0))
            lo = min(s.iv[0] for s in sizes)
            return E(f"wp.cw_div({a.code}, {den.code})", t, T.sym(mag(a.iv) / lo), a.varies)
        if k in ("cw_mul", "cross"):
            a = g.expr(t, d, va)
            b = g.expr(t, d, vb, avoid=a.code)
            atoms = g.k.atoms(a.code)
            if k == "cross" and atoms and atoms == g.k.atoms(b.code):  # may be parallel: cross(s * p, p) is 0
                k = "cw_mul"
            f = 2.0 if k == "cross" else 1.0
            return E(f"wp.{k}({a.code}, {b.code})", t, T.sym(f * mag(a.iv) * mag(b.iv)), a.varies or b.varies)
        if k == "lerp":
            a = g.expr(t, d, vary)
            b = g.expr(t, d, False, avoid=a.code)
            s = rng.choice((0.25, 0.5, 0.1, 0.75))
            return E(f"wp.lerp({b.code}, {a.code}, {fmt_float(s)})", t, T.sym(max(mag(a.iv), mag(b.iv))), a.varies)
        if k.startswith("quat"):
            q = g.expr(T.QUAT, d, va)
            a = g.expr(t, d, vb)
            return E(f"wp.{k}({q.code}, {a.code})", t, T.sym(1.75 * mag(a.iv)), q.varies or a.varies)
        if k == "matvec":
            m = g.expr(T.MAT[n], d, va)
            a = g.expr(t, d, vb)
            iv = T.sym(n * mag(m.iv) * mag(a.iv))
            if rng.random() < g.p.odds.matvec_wp_mul:  # the spelling older Warp code uses for a matrix-vector product
                return E(f"wp.mul({m.code}, {a.code})", t, iv, m.varies or a.varies)
            return E(f"{m.at(MUL)} @ {a.at(MUL + 1)}", t, iv, m.varies or a.varies, MUL)
        x = g.expr(T.TRANSFORM, d, va)
        if k == "translation":
            return E(f"wp.transform_get_translation({x.code})", t, x.iv, x.varies)
        a = g.expr(t, d, vb)
        return E(f"wp.{k}({x.code}, {a.code})", t, T.sym(1.75 * mag(a.iv) + mag(x.iv)), x.varies or a.varies)

    def select() -> E:
        c = g.cond(0)
        a = g.expr(t, d, vary)
        b = g.expr(t, d, False, avoid=a.code)
        return E(f"wp.where({c.code}, {a.code}, {b.code})", t, T.sym(max(mag(a.iv), mag(b.iv))), a.varies)

    def curl() -> E:  # the curl of a noise field: a divergence-free velocity at the thread's point
        a = g.expr(t, d, True)
        return E(f"wp.curlnoise({g.k.noise()}, {a.code})", t, T.sym(4.0), True)

    p = g.p
    return pick(
        rng,
        [
            (p.w_random * 0.3 if g.k.rand_state and n in (2, 3) else 0.0, curl),
            (p.w_binop, arith),
            (p.w_binop, scale),
            (p.w_math * 0.6, construct),
            (p.w_math * 1.5, func),
            (p.w_where * 0.5, select),
            (0.0 if g.k.helper else p.w_call, lambda: g.call(t, depth, vary)),
        ],
    )


def mat_expr(g: Producer, t: WType, depth: int, vary: bool) -> E:
    rng, d, n = g.rng, depth - 1, t.n
    v = T.VEC[n]
    # columns (edge vectors, frame axes) are how Warp code mostly assembles a matrix
    kinds = ["outer", "transpose", "scale", "add", "skew" if n == 3 else "outer", "inverse", "identity", "diag"]
    kinds += ["cols", "cols"]
    if n <= 3:
        kinds.append("ctor")
    if n == 3 and _has(g, T.QUAT):
        kinds += ["quat_to_matrix", "quat_to_matrix"]
    k = rng.choice(kinds)
    va, vb = _split(g, vary)
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
        return E(f"{_ctor(g, t)}({', '.join(p.code for p in parts)})", t, T.sym(b), any(p.varies for p in parts))
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
    if _has(g, T.TRANSFORM):
        kinds.append("rotation")
    k = rng.choice(kinds)
    va, vb = _split(g, vary)
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
        return E(f"wp.normalize({_ctor(g, t)}({axis.code}, {w.code}))", t, (-1.0, 1.0), axis.varies)
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
    va, vb = _split(g, vary)
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
    va, vb = _split(g, vary)
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
