"""``@wp.func`` helpers, written for the call that needs them.

The call site draws its arguments first; the helper's parameters take their
types and ranges from them, and its body is generated over those parameters
alone, with every parameter read (a parameter the body did not reach is
folded into the returned value). A later call reuses a helper when its
arguments fit the helper's parameter ranges. Some helpers are generic
(``typing.Any`` parameters), as Warp code writes them for several types.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from builder.grammar import names as N
from builder.grammar import wtypes as T
from builder.grammar.kernel import KernelCtx, spell
from builder.grammar.producer import Producer
from builder.grammar.scope import Local
from builder.grammar.wtypes import ADD, MUL, E, Interval, WType, fmt_float, mag


@dataclass(frozen=True)
class Helper:
    name: str
    params: tuple[tuple[str, WType, Interval], ...]
    ret: WType
    ret_iv: Interval
    generic: bool = False


def _widen(iv: Interval) -> Interval:
    """A round range containing ``iv``, so later calls can reuse the helper."""
    b = 1.0
    while b < mag(iv):
        b *= 2.0
    return (0.0, b) if iv[0] >= 0 else (-b, b)


def call(g: Producer, t: WType, depth: int, vary: bool) -> E:
    fits = [f for f in g.funcs if f.ret == t]
    if fits and g.rng.random() < g.p.odds.call_existing:
        f = g.rng.choice(fits)
        args = _args(g, [pt for _, pt, _ in f.params], depth, vary)
        if all(piv[0] <= a.iv[0] and a.iv[1] <= piv[1] for a, (_, _, piv) in zip(args, f.params)):
            return E(f"{f.name}({', '.join(a.code for a in args)})", t, f.ret_iv, any(a.varies for a in args))
        return call_new(g, t, depth, args)
    others = [x for x in (T.F32, t) if x in g.p.types() or x == T.F32]
    types = [t] + [g.rng.choice(others) for _ in range(g.rng.randint(0, 2))]
    if T.F32 not in types:
        types.append(T.F32)
    args = _args(g, types, depth, vary)
    return call_new(g, t, depth, args)


def _args(g: Producer, types: list[WType], depth: int, vary: bool) -> list[E]:
    """Call arguments, no two of them the same expression (f(x, x) may cancel inside f)."""
    out: list[E] = []
    for n, t in enumerate(types):
        same = tuple(a.code for a in out if a.t == t)
        out.append(g.expr(t, max(depth - 1, 0), vary and n == 0, avoid=same))
    return out


def call_new(g: Producer, t: WType, depth: int, args: list[E]) -> E:
    k, rng = g.k, g.rng
    types = tuple(a.t for a in args)
    # an overload: the name of a helper taking other types (Warp picks the definition by argument types)
    others = [
        f
        for f in g.funcs
        if not f.generic and len(f.params) == len(args) and tuple(pt for _, pt, _ in f.params) != types
    ]
    overload = bool(others) and rng.random() < g.p.overload
    name = rng.choice(others).name if overload else k.fresh(rng.choice(N.FUNC_NAMES))
    hk = KernelCtx(rng, g.p, 1, k.shape)
    hk.mod, hk.helper = k.mod, True  # its names, constants and nested helpers are the module's
    hg = g.child(hk)  # the helper body is generated like a kernel body, by the caller's kind of generator
    params = []
    for a in args:
        pname = k.fresh(N.stem_for(rng, a.t))
        iv = _widen(a.iv) if a.t.is_float else a.iv
        params.append((pname, a.t, iv))
        hk.frames.add(Local(pname, a.t, iv, True))
        hk.defs[pname] = frozenset((pname,))
    generic = (
        not overload and all(pt.kind == "vec" or pt.is_float for _, pt, _ in params) and rng.random() < g.p.generic
    )
    body = hg.expr(t, max(depth, 1), True)
    text = "\n".join(hk.body) + "\n" + body.code
    missing = [(n, pt, iv) for n, pt, iv in params if not re.search(rf"\b{n}\b", text)]
    for n, pt, iv in missing:
        body = _fold(body, E(n, pt, iv, True))
    sig = ", ".join(
        f"{n}: {'Any' if generic and j == 0 else spell(pt, rng, g.p.odds)}" for j, (n, pt, _) in enumerate(params)
    )
    ret = "" if generic else f" -> {spell(t, rng, g.p.odds)}"
    k.mod.uses_any |= "Any" in sig
    lines = "\n".join(hk.body + [f"    return {body.code}"])
    k.mod.chunks.append(f"@wp.func\ndef {name}({sig}){ret}:\n{lines}\n")
    if not overload:
        k.mod.func_names.append(name)
    f = Helper(name, tuple(params), t, body.iv, generic)
    g.funcs.append(f)
    return E(f"{name}({', '.join(a.code for a in args)})", t, body.iv, any(a.varies for a in args))


def _fold(body: E, p: E) -> E:
    """``body`` combined with a parameter it did not read."""
    if p.t == body.t:
        return E(f"{body.at(ADD)} + {p.at(ADD)}", body.t, T.iv_add(body.iv, p.iv), True, ADD)
    if p.t.is_float and body.t.kind in ("vec", "scalar", "mat"):
        s = p if mag(p.iv) <= 4.0 else E(f"wp.sin({p.code})", p.t, (-1.0, 1.0), True)
        return E(f"{body.at(MUL)} * {s.at(MUL)}", body.t, T.sym(mag(body.iv) * max(mag(s.iv), 1.0)), True, MUL)
    dot = E(f"wp.length({p.code})", T.F32, (0.0, mag(p.iv) * 2.0), True)
    return (
        _fold(body, dot)
        if body.t != T.F32
        else E(
            f"{body.at(ADD)} + {dot.code} * {fmt_float(0.5)}", body.t, T.iv_add(body.iv, (0.0, mag(p.iv))), True, ADD
        )
    )
