"""Statements that compute a value for an expression: loops that accumulate it, branches that choose it.

Each producer emits its statements, then returns the local holding the
result, which the caller uses at once, so no statement here is dead.
"""

from __future__ import annotations

from builder.grammar import wtypes as T
from builder.grammar.producer import Producer
from builder.grammar.scope import Local
from builder.grammar.wtypes import MUL, E, WType, fmt_float, mag

ACC_STEMS = ("acc", "total", "s", "sum_w", "value", "poly", "y")


def _header(g: Producer, trips: int) -> tuple[str, str]:
    """(loop variable, range expression) for ``trips`` iterations: a literal, a wp.static constant or an
    int argument the executor sets to ``trips``."""
    k, rng = g.k, g.rng
    j = k.fresh(rng.choice(("j", "k", "m", "s")) if "j" in k.mod.used else "j")
    r = rng.random()
    if r < g.p.static_loops:
        c = k.fresh(rng.choice(("NUM_TERMS", "DEGREE", "TAPS", "NUM_ITERS")))
        k.mod.consts[c] = f"{c} = wp.constant({trips})"
        return j, f"range(wp.static({c}))" if rng.random() < g.p.odds.loop_static_range else f"range({c})"
    if r < g.p.static_loops + g.p.odds.loop_trips_param:
        n = k.size_param(trips, rng.choice(("num_terms", "order", "taps", "iters")))
        return j, f"range({n.code})"
    return j, f"range({trips})"


def loop_sum(g: Producer, t: WType, depth: int, vary: bool) -> E:
    k, rng = g.k, g.rng
    trips = rng.randint(2, 6)
    kind = rng.choice(("weights", "horner", "relax"))
    coeffs = (
        k.array(
            T.F32, "in", (-1.0, 1.0), rng.choice(("coeffs", "weights", "taps", "filt", "c")), ndim=1, shape=(trips,)
        )
        if kind != "relax"
        else None
    )
    x = g.expr(t, max(depth - 1, 0), vary)
    if kind == "horner":
        x = g.bounded(x, 1.5)
    acc = k.fresh(rng.choice(ACC_STEMS))
    k.emit(
        f"{acc} = {'float(0.0)' if rng.random() < g.p.odds.zero_plain else 'wp.float32(0.0)'}"
    )  # dynamic: the loop mutates it
    j, header = _header(g, trips)
    k.emit(f"for {j} in {header}:")
    k.indent += 1
    k.frames.push()
    k.loop_depth += 1
    k.unrolled *= trips
    if kind == "weights" and rng.random() < g.p.odds.loop_guarded:  # an if nested in the loop: some terms only
        k.emit(f"if {coeffs.name}[{j}] {rng.choice(('>', '>=', '<', '<='))} 0.0:")
        k.emit(f"    {acc} += {coeffs.name}[{j}] * {x.at(MUL)}")
        iv = T.sym(trips * mag(x.iv))
    elif kind == "weights":
        k.emit(f"{acc} += {coeffs.name}[{j}] * {x.at(MUL)}")
        iv = T.sym(trips * mag(x.iv))
    elif kind == "horner":
        k.emit(f"{acc} = {acc} * {x.at(MUL)} + {coeffs.name}[{j}]")
        b, total = mag(x.iv), 0.0
        for _ in range(trips):
            total = total * b + 1.0
        iv = T.sym(total)
    else:
        c = rng.choice((0.5, 0.9, 0.75, 0.25))
        term = g.bounded(g.expr(t, max(depth - 2, 0), False, avoid=x.code), 4.0)
        k.emit(f"{acc} = {acc} * {fmt_float(c)} + {x.at(MUL)} * {term.at(MUL)}")
        iv = T.sym(trips * mag(x.iv) * max(mag(term.iv), 1.0))
    k.unrolled //= trips
    k.loop_depth -= 1
    k.frames.pop()
    k.indent -= 1
    k.frames.add(Local(acc, t, iv, x.varies))
    k.defs[acc] = k.atoms(x.code) | ({coeffs.name} if coeffs else set())
    return E(acc, t, iv, x.varies)


def branch(g: Producer, t: WType, depth: int, vary: bool) -> E:
    """``v = a`` then ``if cond: v = b`` (or an update of ``v``); ``v`` reaches the use on both paths."""
    k, rng = g.k, g.rng
    a = g.expr(t, max(depth - 1, 0), vary)
    c = g.cond(1)
    name = k.fresh(rng.choice(("val", "res", "out_v", "w", "r", "f")) if t.kind == "scalar" else "v")
    k.emit(f"{name} = {a.code}")
    k.emit(f"if {c.code}:")
    k.indent += 1
    k.frames.push()
    k.frames.add(Local(name, t, a.iv, a.varies))  # readable in the body, as the value before the branch
    b = g.expr(t, max(depth - 1, 0), False, avoid=name)
    if rng.random() < g.p.odds.branch_compound_assign and (t.is_float or t.kind == "vec"):
        op = rng.choice(("+=", "-=", "*="))
        if op == "*=":
            b = g.bounded(b, 2.0) if t.kind == "scalar" else b
            if t.kind != "scalar":
                op = "+="
        k.emit(f"{name} {op} {b.code}")
        iv = T.iv_mul(a.iv, b.iv) if op == "*=" else T.sym(mag(a.iv) + mag(b.iv))
        iv = T.iv_union(iv, a.iv)
    else:
        k.emit(f"{name} = {b.code}")
        iv = T.iv_union(a.iv, b.iv)
    k.frames.pop()
    k.indent -= 1
    k.frames.add(Local(name, t, iv, a.varies or b.varies))
    k.defs[name] = k.atoms(a.code) | k.atoms(b.code)
    return E(name, t, iv, a.varies or b.varies)
