"""Kernel bodies by category: what Warp programs do, with generated expressions in the slots.

Every builder starts from the values it stores (outputs, atomics) and asks
the expression grammar for what they need; the structure around them
(boundary guards, loops over neighbours or matrix rows, integration steps)
is the idiom.
"""

from __future__ import annotations

from builder.grammar import names as N
from builder.grammar import wtypes as T
from builder.grammar.expr import Gen
from builder.grammar.scope import ArrayArg, Local
from builder.grammar.wtypes import ADD, ATOM, MUL, E, WType, fmt_float, lit, mag
from builder.rng import derive_rng

VEC3 = T.VEC[3]


def depth(g: Gen) -> int:
    """An expression's depth: the policy's range, capped in a short kernel (``output_count``)."""
    d = g.rng.randint(*g.p.depth)
    return min(d, g.p.short_depth) if g.k.short else d


def output_count(g: Gen) -> int:
    """How many values an elementwise or reduction kernel stores: the policy's range, or one, from shallow
    expressions, in a short kernel (``Odds.short_kernel``; generator 4.5.0).

    Written kernels are often a line or two of work (warp-lang's tests: median 6 lines), and short kernels made
    generated ones harder for the realism judge to tell from warp-lang's tests and newton (docs/results/realism.md,
    "Generator 4.5.0"). Whether a kernel is short is drawn from a stream of its own (derived from the program's
    state without drawing from it), so a kernel that is not is the program it was before.
    """
    n = max(1, g.rng.randint(*g.p.outputs))
    if derive_rng("size", g.rng.getstate()).random() < g.p.odds.short_kernel:
        g.k.short = True  # depth() caps this kernel's expressions from here on
        return 1
    return n


def guard(g: Gen) -> None:
    """An early exit at the top of the kernel, as Warp code writes it."""
    k, rng = g.k, g.rng
    if rng.random() >= g.p.early_return:
        return
    kind = rng.choice(("mask", "mask", "bound", "value"))
    i = k.tid[0]
    if kind == "bound" and k.ndim == 1 and k.shape[0] > 16:
        n = k.size_param(k.shape[0] - 8, "n" if "n" not in k.mod.used else "count")
        k.guard += [f"    if {i} >= {n.code}:", "        return"]
        return
    if kind == "value":
        a = k.array(T.F32, "in", (0.0, 2.0), rng.choice(("inv_mass", "weights", "active_w")))
        k.guard += [f"    if {a.name}[{k.own}] == 0.0:", "        return"]
        return
    t = rng.choice((T.U8, T.I32, T.I8, T.I16))
    a = k.array(t, "index", (0, 1), rng.choice(("active", "mask", "flags", "enabled")), fill="mask")
    test = f"{a.name}[{k.own}] == {lit(t, 0)}" if rng.random() < g.p.odds.mask_compared else f"not {a.name}[{k.own}]"
    k.guard += [f"    if {test if t not in (T.I8, T.I16) else f'{a.name}[{k.own}] == {lit(t, 0)}'}:", "        return"]


def count_to_float(g: Gen, n: str) -> str:
    """An int count as a float, for a mean or a fraction."""
    return f"{g.rng.choice(('float', 'float', 'wp.float32', 'wp.float'))}({n})"


def combine(g: Gen, e: E, chance: float) -> E:
    """``e`` (an idiom's result) scaled by or offset with another value the kernel computes."""
    if g.rng.random() >= chance or not (e.t.is_float or e.t.kind == "vec"):
        return e
    if g.rng.random() < g.p.odds.combine_scaled:
        s = g.bounded(g.expr(T.F32, depth(g), False), 4.0)
        return E(f"{e.at(MUL)} * {s.at(MUL)}", e.t, T.sym(mag(e.iv) * mag(s.iv)), e.varies, MUL)
    other = g.expr(e.t, depth(g), False, avoid=e.code)
    if e.t.is_float:
        other = g.bounded(other, 100.0)
    return E(T.sum_code(e.at(ADD), g.rng.choice("+-"), other), e.t, T.sym(mag(e.iv) + mag(other.iv)), e.varies, ADD)


def write(g: Gen, t: WType, e: E, index: str = "", stem: str = "") -> None:
    """Store ``e``: into an input it was computed from (in place) or into a new output array."""
    k, rng = g.k, g.rng
    idx = index or k.own
    # The adjoint pass replays the kernel reading the array as written: only arrays whose every read was
    # guarded as sign-indefinite (so any value is safe) are written back in place.
    # ``a + e`` with ``e`` computed from ``a`` may cancel (a + (k - a)): only arrays ``e`` does not read.
    atoms = k.atoms(e.code)
    # The update is at most the array's own range, so replayed reads stay within twice the range guards assumed.
    mine = [
        a
        for a in k.inputs(t)
        if a.role == "in" and a.name in k.loaded and a.iv[0] < 0 and a.name not in atoms and mag(e.iv) <= mag(a.iv)
    ]
    if mine and not index and not stem and (t.is_float or t.kind == "vec") and rng.random() < g.p.in_place:
        # an update in place, as integrators write it: the stored value differs from the one read
        a = rng.choice(mine)
        k.mark_inout(a.name)
        if rng.random() < g.p.odds.in_place_spelled_out:
            k.emit(f"{a.name}[{idx}] = {k.loaded[a.name].name} + {e.at(ADD)}")
        else:
            k.emit(f"{a.name}[{idx}] += {e.code}")
        return
    if t == T.F32 and rng.random() < g.p.half:
        a = k.array(T.F16, "out")
        k.emit(f"{a.name}[{idx}] = wp.float16({e.code})")
        return
    if t.kind == "vec" and k.ndim == 1 and not index and rng.random() < g.p.odds.store_components:
        # a vector written into a float array of n columns, one component at a time
        v = e if e.prec == ATOM and "(" not in e.code and "[" not in e.code else k.bind(N.stem_for(rng, t), e)
        a = k.array(T.F32, "out", stem=stem, ndim=2, shape=(k.shape[0], t.n))
        for c in range(t.n):
            k.emit(f"{a.name}[{idx}, {c}] = {v.code}[{c}]")
        return
    a = k.array(t, "out", stem=stem)
    k.emit(f"{a.name}[{idx}] = {e.code}")


def elementwise(g: Gen) -> None:
    guard(g)
    for _ in range(output_count(g)):
        t = g.rng.choice(g.p.out_types())
        write(g, t, g.compose(t, depth(g), True))  # computed, not copied


def particles(g: Gen) -> None:
    k, rng = g.k, g.rng
    guard(g)
    pos = k.array(VEC3, "in", (-2.0, 2.0), rng.choice(("positions", "particle_x", "x", "points")))
    vel = k.array(VEC3, "in", (-1.0, 1.0), rng.choice(("velocities", "particle_v", "v", "vel")))
    x, v = k.load(pos), k.load(vel)
    dt = k.param(T.F32, (0.001, 0.05), rng.choice(("dt", "delta_t", "sim_dt")))
    f = g.expr(VEC3, depth(g), True)
    if f.prec != 100 or "(" in f.code:
        f = k.bind(rng.choice(("f", "force", "f_total")), f)
    scale = rng.choice(("inv_mass_arr", "mass_param", "none"))
    if scale == "inv_mass_arr":
        w = k.array(T.F32, "in", (0.5, 2.0), rng.choice(("inv_mass", "particle_inv_mass", "w")))
        acc = E(f"{f.at(MUL)} * {w.name}[{k.own}]", VEC3, T.sym(mag(f.iv) * 2.0), True, MUL)
    elif scale == "mass_param":
        m = k.param(T.F32, (0.5, 2.0), rng.choice(("mass", "particle_mass", "m")))
        acc = E(f"{f.at(MUL)} / {m.code}", VEC3, T.sym(mag(f.iv) * 2.0), True, MUL)
    else:
        acc = f
    if rng.random() < g.p.odds.particles_gravity:
        gvec = k.param(VEC3, (-1.0, 1.0), rng.choice(("gravity", "g", "external_accel")))
        acc = E(f"{acc.at(ADD)} + {gvec.code}", VEC3, T.sym(mag(acc.iv) + 1.0), True, ADD)
    a_name = k.bind(rng.choice(("a", "acc_i")), acc) if rng.random() < g.p.odds.particles_named_accel else acc
    v_new = k.fresh(rng.choice(("v_new", "v1", "vel_new")))
    k.emit(f"{v_new} = {v.code} + {a_name.at(MUL)} * {dt.code}")
    if rng.random() < g.p.odds.particles_damping:
        damp = k.param(T.F32, (0.9, 1.0), rng.choice(("damping", "drag", "decay")))
        k.emit(
            f"{v_new} = {v_new} * {damp.code}"
            if rng.random() < g.p.odds.damping_spelled_out
            else f"{v_new} *= {damp.code}"
        )
    x_new = k.fresh(rng.choice(("x_new", "x1", "pos_new")))
    k.emit(f"{x_new} = {x.code} + {v_new} * {dt.code}")
    if rng.random() < g.p.odds.particles_ground:
        ground = rng.choice(("0.0", "-1.0"))
        axis = rng.randrange(3)
        comps = [f"{x_new}[{c}]" if c != axis else ground for c in range(3)]
        vcomps = [
            f"{v_new}[{c}]" if c != axis else f"-{v_new}[{c}] * {fmt_float(rng.choice((0.5, 0.8, 0.3)))}"
            for c in range(3)
        ]
        k.emit(f"if {x_new}[{axis}] < {ground}:")
        k.emit(f"    {x_new} = wp.vec3({', '.join(comps)})")
        k.emit(f"    {v_new} = wp.vec3({', '.join(vcomps)})")
    k.frames.add(Local(x_new, VEC3, (-10.0, 10.0), True))
    k.frames.add(Local(v_new, VEC3, (-10.0, 10.0), True))
    in_place = rng.random() < g.p.odds.particles_in_place  # both updated in place, or both written to new arrays
    stems = (("x_out", "new_positions", "x_next"), ("v_out", "new_velocities", "v_next"))
    for (name, arr), pool in zip(((x_new, pos), (v_new, vel)), stems):
        if in_place:
            k.mark_inout(arr.name)
            k.emit(f"{arr.name}[{k.own}] = {name}")
        else:
            write(g, VEC3, E(name, VEC3, (-10.0, 10.0), True), stem=rng.choice(pool))


def _neighbours(k, u: ArrayArg) -> tuple[list[str], str]:
    """(reads of ``u`` at each neighbour, the centre read) for a 1-D or 2-D launch."""
    if k.ndim == 1:
        i = k.tid[0]
        return [f"{u.name}[{i} - 1]", f"{u.name}[{i} + 1]"], f"{u.name}[{i}]"
    i, j = k.tid
    return (
        [f"{u.name}[{i} - 1, {j}]", f"{u.name}[{i} + 1, {j}]", f"{u.name}[{i}, {j} - 1]", f"{u.name}[{i}, {j} + 1]"],
        f"{u.name}[{i}, {j}]",
    )


def stencil(g: Gen) -> None:
    k, rng = g.k, g.rng
    sizes = [k.size_param(s, stem) for s, stem in zip(k.shape, ("nx", "ny") if k.ndim == 2 else ("n",))]
    u = k.array(T.F32, "in", rng.choice(((-1.0, 1.0), (0.0, 2.0))), rng.choice(("u", "phi", "temperature", "h")))
    nbrs, centre = _neighbours(k, u)
    edge = " or ".join(f"{t} == 0 or {t} >= {s.code} - 1" for t, s in zip(k.tid, sizes))
    early = rng.random() < g.p.odds.stencil_early_exit
    if early:
        k.guard += [f"    if {edge}:", "        return"]
    else:
        inside = " and ".join(f"{t} > 0 and {t} < {s.code} - 1" for t, s in zip(k.tid, sizes))
        k.emit(f"if {inside}:")
        k.indent += 1
        k.frames.push()
    c = k.fresh(rng.choice(("c", "u_c", "centre", "center")))
    k.emit(f"{c} = {centre}")
    kind = rng.choice(("laplace", "laplace", "gradient", "average"))
    n = len(nbrs)
    if kind == "laplace":
        name = k.fresh(rng.choice(("lap", "laplacian", "d2u")))
        k.emit(f"{name} = {' + '.join(nbrs)} - {fmt_float(float(n))} * {c}")
        iv = T.sym(2.0 * n * mag(u.iv))
    elif kind == "gradient":
        name = k.fresh(rng.choice(("grad", "du", "slope")))
        k.emit(f"{name} = ({nbrs[1]} - {nbrs[0]}) * 0.5")
        iv = T.sym(mag(u.iv))
    else:
        name = k.fresh(rng.choice(("avg", "mean", "blur")))
        k.emit(f"{name} = ({' + '.join(nbrs)} + {c}) / {fmt_float(float(n + 1))}")
        iv = T.sym(mag(u.iv))
    k.frames.add(Local(c, T.F32, u.iv, True))
    k.frames.add(Local(name, T.F32, iv, True))
    coef = g.expr(T.F32, 1, False, avoid=name)
    if mag(coef.iv) > 2.0:
        coef = g.bounded(coef, 1.0)
    value = E(f"{c} + {coef.at(MUL)} * {name}", T.F32, T.iv_add(u.iv, T.iv_mul(coef.iv, iv)), True, ADD)
    if rng.random() < g.p.odds.stencil_source:
        src = g.expr(T.F32, depth(g) - 1, False, avoid=name)
        value = E(f"{value.code} + {src.at(ADD)}", T.F32, T.iv_add(value.iv, src.iv), True, ADD)
    out = k.array(T.F32, "out", stem=rng.choice(("u_new", "out", "phi_out", "result")))
    k.emit(f"{out.name}[{k.own}] = {value.code}")
    if not early:
        k.frames.pop()
        k.indent -= 1
        if rng.random() < g.p.odds.stencil_else_copy:
            k.emit("else:")
            k.emit(f"    {out.name}[{k.own}] = {centre}")
