"""Vector, matrix, quaternion and transform producers (all float32 components).

Quaternions are kept unit-length by construction (every producer returns a
rotation), which is what makes slerp, rotation and inversion safe.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from builder.grammar import wtypes as T
from builder.grammar.wtypes import E, WType, fmt_float, mag
from builder.rng import pick

if TYPE_CHECKING:
    from builder.grammar.exprs import ExprGen


def _v(*es: E) -> bool:
    return any(e.varies for e in es)


def _scalar(g: ExprGen, depth: int, bound: float | None = None) -> E:
    e = g.gen(T.F32, depth - 1)
    return g.bounded(e, bound) if bound is not None else e


def construct_vec(g: ExprGen, n: int, depth: int) -> E:
    t = T.VEC[n]
    if g.rng.random() < 0.2:
        s = _scalar(g, depth)
        return E(f"{t.spelling}({s.code})", t, s.iv, s.varies)
    parts = [_scalar(g, min(depth, 1)) for _ in range(n)]
    b = max(mag(p.iv) for p in parts)
    return E(f"{t.spelling}({', '.join(p.code for p in parts)})", t, T.sym(b), _v(*parts))


def vec_expr(g: ExprGen, n: int, depth: int) -> E:
    rng, t = g.rng, T.VEC[n]
    d = depth - 1

    def arith() -> E:
        a, b = g.pair(t, d)
        op = rng.choice("+-")
        return E(f"({a.code} {op} {b.code})", t, T.sym(mag(a.iv) + mag(b.iv)), _v(a, b))

    def scale() -> E:
        a, s = g.gen(t, d), _scalar(g, depth)
        if rng.random() < 0.25:
            s = g.positive(s, 1.0) if not (s.iv[0] > 0.05 or s.iv[1] < -0.05) else s
            lo = min(abs(s.iv[0]), abs(s.iv[1]))
            return E(f"({a.code} / {s.code})", t, T.sym(mag(a.iv) / lo), _v(a, s))
        code = f"({a.code} * {s.code})" if rng.random() < 0.7 else f"({s.code} * {a.code})"
        return E(code, t, T.sym(mag(a.iv) * mag(s.iv)), _v(a, s))

    def unary() -> E:
        a = g.gen(t, d)
        k = rng.choice(["normalize", "neg", "abs"])
        if k == "normalize":
            return E(f"wp.normalize({a.code})", t, (-1.0, 1.0), a.varies)
        if k == "neg":
            return E(f"(-{a.code})", t, a.iv, a.varies)
        return E(f"wp.abs({a.code})", t, (0.0, mag(a.iv)), a.varies)

    def binary() -> E:
        a, b = g.pair(t, d)
        k = rng.choice(["cw_mul", "cw_div", "min", "max", "lerp"] + (["cross"] if n == 3 else []))
        if k == "cw_mul":
            return E(f"wp.cw_mul({a.code}, {b.code})", t, T.sym(mag(a.iv) * mag(b.iv)), _v(a, b))
        if k == "cw_div":
            den = ", ".join(fmt_float(rng.choice([0.5, 1.0, 2.0, 4.0, 0.25])) for _ in range(n))
            return E(f"wp.cw_div({a.code}, {t.spelling}({den}))", t, T.sym(mag(a.iv) * 4.0), a.varies)
        if k == "cross":
            return E(f"wp.cross({a.code}, {b.code})", t, T.sym(2 * mag(a.iv) * mag(b.iv)), _v(a, b))
        if k == "lerp":
            s = g.fit(_scalar(g, depth), (0.0, 1.0))
            return E(f"wp.lerp({a.code}, {b.code}, {s.code})", t, T.sym(max(mag(a.iv), mag(b.iv))), _v(a, b, s))
        return E(f"wp.{k}({a.code}, {b.code})", t, T.sym(max(mag(a.iv), mag(b.iv))), _v(a, b))

    def transform_vec() -> E:
        kinds = ["matvec", "diag", "row"]
        if n == 3 and T.QUAT in g.policy.types():
            kinds += ["quat_rotate", "quat_rotate_inv"]
        if n == 3 and T.TRANSFORM in g.policy.types():
            kinds += ["transform_point", "transform_vector", "translation"]
        k = rng.choice(kinds)
        if k in ("matvec", "diag", "row"):
            m = g.gen(T.MAT[n], d)
            if k == "diag":
                return E(f"wp.get_diag({m.code})", t, m.iv, m.varies)
            if k == "row":
                return E(f"{m.code}[{rng.randrange(n)}]", t, m.iv, m.varies)
            a = g.gen(t, d)
            return E(f"({m.code} @ {a.code})", t, T.sym(n * mag(m.iv) * mag(a.iv)), _v(m, a))
        if k.startswith("quat"):
            q, a = g.gen(T.QUAT, d), g.gen(t, d)
            return E(f"wp.{k}({q.code}, {a.code})", t, T.sym(1.8 * mag(a.iv)), _v(q, a))
        x = g.gen(T.TRANSFORM, d)
        if k == "translation":
            return E(f"wp.transform_get_translation({x.code})", t, x.iv, x.varies)
        a = g.gen(t, d)
        return E(f"wp.{k}({x.code}, {a.code})", t, T.sym(1.8 * mag(a.iv) + mag(x.iv)), _v(x, a))

    def sample() -> E:
        s = g.scope.rand_state
        names = {
            2: ["sample_unit_disk", "sample_unit_square", "sample_unit_ring"],
            3: [
                "sample_unit_sphere",
                "sample_unit_sphere_surface",
                "sample_unit_cube",
                "sample_unit_hemisphere",
                "sample_unit_hemisphere_surface",
            ],
        }[n]
        return E(f"wp.{rng.choice(names)}({s})", t, (-1.0, 1.0), True)

    def select() -> E:
        c, a, b = g.cond(d), g.gen(t, d), g.gen(t, d)
        return E(f"wp.where({c.code}, {a.code}, {b.code})", t, T.sym(max(mag(a.iv), mag(b.iv))), _v(a, b))

    has_mat = T.MAT[n] in g.policy.types() or T.QUAT in g.policy.types()
    options = [
        (g.w("binop"), arith),
        (g.w("binop"), scale),
        (g.w("math"), unary),
        (g.w("math2"), binary),
        (g.w("linalg") if has_mat else 0.0, transform_vec),
        (1.5, lambda: construct_vec(g, n, depth)),
        (g.w("select"), select),
        (g.w("random") if g.scope.rand_state and n in (2, 3) else 0.0, sample),
        (g.w("call") if any(f.ret == t for f in g.funcs) else 0.0, lambda: g.call(t, depth)),
    ]
    return pick(rng, options)


def mat_expr(g: ExprGen, n: int, depth: int) -> E:
    rng, t, v = g.rng, T.MAT[n], T.VEC[n]
    d = depth - 1
    ident = f"wp.identity(n={n}, dtype=float)"

    def outer() -> E:
        a, b = g.gen(v, d), g.gen(v, d)
        return E(f"wp.outer({a.code}, {b.code})", t, T.sym(mag(a.iv) * mag(b.iv)), _v(a, b))

    def diag() -> E:
        a = g.gen(v, d)
        if rng.random() < 0.5:
            return E(f"wp.diag({a.code})", t, a.iv, a.varies)
        s = _scalar(g, depth)
        return E(f"({ident} * {s.code})", t, T.sym(mag(s.iv)), s.varies)

    def arith() -> E:
        a, b = g.pair(t, d)
        k = rng.choice(["+", "-", "@", "*s"])
        if k == "@":
            return E(f"({a.code} @ {b.code})", t, T.sym(n * mag(a.iv) * mag(b.iv)), _v(a, b))
        if k == "*s":
            s = _scalar(g, depth)
            return E(f"({a.code} * {s.code})", t, T.sym(mag(a.iv) * mag(s.iv)), _v(a, s))
        return E(f"({a.code} {k} {b.code})", t, T.sym(mag(a.iv) + mag(b.iv)), _v(a, b))

    def unary() -> E:
        if rng.random() < 0.5:
            a = g.gen(t, d)
            return E(f"wp.transpose({a.code})", t, a.iv, a.varies)
        # A A^T + I is symmetric positive definite with eigenvalues >= 1: always invertible.
        # A is a leaf because it is written twice (a random draw must not differ between uses).
        a = g.leaf(t)
        return E(f"wp.inverse({a.code} @ wp.transpose({a.code}) + {ident})", t, (-1.0, 1.0), a.varies)

    def from_vecs() -> E:
        rows = [g.gen(v, 0) for _ in range(n)]
        k = rng.choice(["matrix_from_rows", "matrix_from_cols"])
        return E(f"wp.{k}({', '.join(r.code for r in rows)})", t, T.sym(max(mag(r.iv) for r in rows)), _v(*rows))

    def special() -> E:
        if n == 3:
            if T.QUAT in g.policy.types() and rng.random() < 0.5:
                q = g.gen(T.QUAT, d)
                return E(f"wp.quat_to_matrix({q.code})", t, (-1.0, 1.0), q.varies)
            a = g.gen(v, d)
            return E(f"wp.skew({a.code})", t, a.iv, a.varies)
        if n == 4 and T.TRANSFORM in g.policy.types():
            x = g.gen(T.TRANSFORM, d)
            return E(f"wp.transform_to_matrix({x.code})", t, T.sym(max(1.0, mag(x.iv))), x.varies)
        return outer()

    options = [
        (2.0, outer),
        (1.0, diag),
        (g.w("binop"), arith),
        (g.w("math"), unary),
        (1.0, from_vecs),
        (g.w("linalg"), special),
        (g.w("call") if any(f.ret == t for f in g.funcs) else 0.0, lambda: g.call(t, depth)),
    ]
    return pick(rng, options)


def quat_expr(g: ExprGen, depth: int) -> E:
    rng, t, d = g.rng, T.QUAT, depth - 1

    def axis_angle() -> E:
        axis = g.gen(T.VEC[3], d)
        ang = _scalar(g, depth)
        return E(f"wp.quat_from_axis_angle(wp.normalize({axis.code}), {ang.code})", t, (-1.0, 1.0), _v(axis, ang))

    def rpy() -> E:
        a, b, c = (_scalar(g, 1) for _ in range(3))
        return E(f"wp.quat_rpy({a.code}, {b.code}, {c.code})", t, (-1.0, 1.0), _v(a, b, c))

    def compose() -> E:
        a, b = g.pair(t, d)
        k = rng.choice(["mul", "inverse", "slerp", "normalize"])
        if k == "mul":
            return E(f"({a.code} * {b.code})", t, (-1.0, 1.0), _v(a, b))
        if k == "inverse":
            return E(f"wp.quat_inverse({a.code})", t, (-1.0, 1.0), a.varies)
        if k == "normalize":
            return E(f"wp.normalize({a.code})", t, (-1.0, 1.0), a.varies)
        s = g.fit(_scalar(g, depth), (0.0, 1.0))
        return E(f"wp.quat_slerp({a.code}, {b.code}, {s.code})", t, (-1.0, 1.0), _v(a, b, s))

    def from_xform() -> E:
        x = g.gen(T.TRANSFORM, d)
        return E(f"wp.transform_get_rotation({x.code})", t, (-1.0, 1.0), x.varies)

    options = [
        (2.0, axis_angle),
        (1.0, rpy),
        (0.3, lambda: E("wp.quat_identity()", t, (-1.0, 1.0))),
        (2.0, compose),
        (1.0 if T.TRANSFORM in g.policy.types() else 0.0, from_xform),
        (g.w("call") if any(f.ret == t for f in g.funcs) else 0.0, lambda: g.call(t, depth)),
    ]
    return pick(rng, options)


def transform_expr(g: ExprGen, depth: int) -> E:
    rng, t, d = g.rng, T.TRANSFORM, depth - 1

    def make() -> E:
        p, q = g.gen(T.VEC[3], d), g.gen(T.QUAT, d)
        return E(f"wp.transform({p.code}, {q.code})", t, T.sym(max(1.0, mag(p.iv))), _v(p, q))

    def compose() -> E:
        a = g.gen(t, d)
        if rng.random() < 0.4:
            return E(f"wp.transform_inverse({a.code})", t, T.sym(1.8 * mag(a.iv)), a.varies)
        b = g.gen(t, d)
        code = f"({a.code} * {b.code})" if rng.random() < 0.5 else f"wp.transform_multiply({a.code}, {b.code})"
        return E(code, t, T.sym(mag(a.iv) + 1.8 * mag(b.iv)), _v(a, b))

    options = [
        (2.0, make),
        (0.3, lambda: E("wp.transform_identity()", t, (-1.0, 1.0))),
        (2.0, compose),
        (g.w("call") if any(f.ret == t for f in g.funcs) else 0.0, lambda: g.call(t, depth)),
    ]
    return pick(rng, options)


def terminal(g: ExprGen, t: WType) -> E:
    """A constructor from scalar leaves: where recursion stops for composite types."""
    if t.kind == "vec":
        return construct_vec(g, t.n, 0)
    if t.kind == "mat":
        a = construct_vec(g, t.n, 0)
        return E(f"wp.diag({a.code})", t, a.iv, a.varies)
    if t.kind == "quat":
        axis, ang = construct_vec(g, 3, 0), g.leaf(T.F32)
        return E(f"wp.quat_from_axis_angle(wp.normalize({axis.code}), {ang.code})", t, (-1.0, 1.0), _v(axis, ang))
    p, q = construct_vec(g, 3, 0), terminal(g, T.QUAT)
    return E(f"wp.transform({p.code}, {q.code})", t, T.sym(max(1.0, mag(p.iv))), _v(p, q))


def linalg_expr(g: ExprGen, t: WType, depth: int) -> E:
    if depth <= 0:
        return terminal(g, t)
    if t.kind == "vec":
        return vec_expr(g, t.n, depth)
    if t.kind == "mat":
        return mat_expr(g, t.n, depth)
    if t.kind == "quat":
        return quat_expr(g, depth)
    if t.kind == "transform":
        return transform_expr(g, depth)
    raise TypeError(f"no producer for {t.spelling!r}")


def reduce_to_float(g: ExprGen, depth: int) -> E:
    """A float32 computed from a vector, matrix or quaternion (dot, length, determinant...)."""
    rng, d = g.rng, depth - 1
    kinds = [x for x in g.policy.types() if x.kind in ("vec", "mat", "quat")]
    src = rng.choice(kinds)
    a = g.gen(src, d)
    n = src.n
    if src.kind == "vec":
        k = rng.choice(["dot", "length", "length_sq", "comp", "norm_l1", "norm_l2", "norm_huber", "argmax"])
        if k == "dot":
            a, b = g.pair(src, d)
            return E(f"wp.dot({a.code}, {b.code})", T.F32, T.sym(n * mag(a.iv) * mag(b.iv)), _v(a, b))
        if k == "comp":
            return E(f"{a.code}[{rng.randrange(n)}]", T.F32, a.iv, a.varies)
        if k == "length_sq":
            return E(f"wp.length_sq({a.code})", T.F32, (0.0, n * mag(a.iv) ** 2), a.varies)
        if k == "norm_l1":
            return E(f"wp.norm_l1({a.code})", T.F32, (0.0, n * mag(a.iv)), a.varies)
        if k == "argmax":
            return E(f"float(wp.{rng.choice(['argmax', 'argmin'])}({a.code}))", T.F32, (0.0, n - 1.0), a.varies)
        if k == "norm_huber":
            return E(f"wp.norm_huber({a.code})", T.F32, (0.0, n * mag(a.iv) ** 2), a.varies)
        name = "length" if k == "length" else "norm_l2"
        return E(f"wp.{name}({a.code})", T.F32, (0.0, math.sqrt(n) * mag(a.iv)), a.varies)
    if src.kind == "quat":
        if rng.random() < 0.5:
            return E(f"{a.code}[{rng.randrange(4)}]", T.F32, (-1.0, 1.0), a.varies)
        return E(f"wp.quat_twist_angle(wp.vec3(0.0, 0.0, 1.0), {a.code})", T.F32, (-7.0, 7.0), a.varies)
    k = rng.choice(["determinant", "trace", "entry", "ddot"])
    if k == "determinant" and ("outer" in a.code or "skew" in a.code):
        k = "trace"  # rank-deficient: the determinant would be 0 for every thread
    b = mag(a.iv)
    if k == "determinant":
        return E(f"wp.determinant({a.code})", T.F32, T.sym(math.factorial(n) * b**n), a.varies)
    if k == "trace":
        return E(f"wp.trace({a.code})", T.F32, T.sym(n * b), a.varies)
    if k == "ddot":
        o = g.gen(src, d)
        return E(f"wp.ddot({a.code}, {o.code})", T.F32, T.sym(n * n * b * mag(o.iv)), _v(a, o))
    return E(f"{a.code}[{rng.randrange(n)}, {rng.randrange(n)}]", T.F32, a.iv, a.varies)
