"""Tile GEMMs: one block per output tile of C = A @ B, over a 2-D grid of tiles, with an optional epilogue.

The module turns libmathdx off (``enable_mathdx_gemm``), as Warp's own scalar-GEMM benchmark and tests do:
Warp then emits its scalar ``tile_matmul`` for every target, a translation unit that holds the whole product.
With libmathdx on, the CUDA unit would only declare cuBLASDx functions whose code is LTO-IR linked in later.
"""

from __future__ import annotations

from builder.grammar import helpers
from builder.grammar import wtypes as T
from builder.grammar.expr import Gen
from builder.grammar.wtypes import E

ACTIVATIONS = ("wp.tanh", "wp.sin", "wp.abs")


def gemm(g: Gen) -> None:
    k, rng = g.k, g.rng
    k.mod.options["enable_mathdx_gemm"] = False
    tm, tn, tk = rng.choice((8, 16)), rng.choice((8, 16)), rng.choice((4, 8, 16))
    steps = rng.choice((1, 2, 2, 3, 4))
    k.relaunch((rng.choice((1, 2, 4)), rng.choice((2, 3))), rng.choice((("i", "j"), ("row", "col"), ("bi", "bj"))))
    i, j = k.tid
    cm, cn, ck = (_const(g, name, v) for name, v in (("TILE_M", tm), ("TILE_N", tn), ("TILE_K", tk)))
    m, n, depth = k.shape[0] * tm, k.shape[1] * tn, steps * tk
    a = k.array(T.F32, "in", (-1.0, 1.0), rng.choice(("A", "a", "lhs")), ndim=2, shape=(m, depth))
    b = k.array(T.F32, "in", (-1.0, 1.0), rng.choice(("B", "b", "rhs")), ndim=2, shape=(depth, n))
    alpha = k.param(T.F32, (0.5, 2.0), "alpha").code if rng.random() < g.p.tile_step else ""
    scale = f", alpha={alpha}" if alpha else ""
    c_off = f"offset=({i} * {cm}, {j} * {cn})"
    acc = k.fresh(rng.choice(("acc", "sum", "tile_c")))
    if steps == 1 and rng.random() < g.p.odds.gemm_single_load:
        at, bt = k.fresh("tile_a"), k.fresh("tile_b")
        k.emit(f"{at} = wp.tile_load({a.name}, shape=({cm}, {ck}), offset=({i} * {cm}, 0))")
        k.emit(f"{bt} = wp.tile_load({b.name}, shape=({ck}, {cn}), offset=(0, {j} * {cn}))")
        if rng.random() < g.p.tile_step:  # C = alpha * A @ B + beta * C_in, read and written in place
            c_in = k.array(T.F32, "inout", (-1.0, 1.0), rng.choice(("C", "c", "out")), ndim=2, shape=(m, n))
            beta = k.param(T.F32, (0.1, 1.0), "beta").code
            k.emit(f"{acc} = wp.tile_load({c_in.name}, shape=({cm}, {cn}), {c_off})")
            k.emit(f"wp.tile_matmul({at}, {bt}, {acc}, alpha={alpha or 1.0}, beta={beta})")
            k.emit(f"wp.tile_store({c_in.name}, {acc}, {c_off})")
            return
        k.emit(f"{acc} = wp.tile_matmul({at}, {bt}{scale})")
    else:
        k.emit(f"{acc} = wp.tile_zeros(shape=({cm}, {cn}), dtype=float)")
        step = k.fresh(rng.choice(("k", "kk", "step")))
        panel = ""
        if rng.random() < g.p.tile_step:  # the block's whole row panel of A, read once; one view per step
            panel = k.fresh(rng.choice(("a_panel", "a_rows")))
            k.emit(f"{panel} = wp.tile_load({a.name}, shape=({cm}, {depth}), offset=({i} * {cm}, 0))")
        k.emit(f"for {step} in range({_trips(g, a.name, steps, ck)}):")
        k.indent += 1
        at, bt = k.fresh("tile_a" if panel else "a"), k.fresh("b")
        if panel:
            k.emit(f"{at} = wp.tile_view({panel}, offset=(0, {step} * {ck}), shape=({cm}, {ck}))")
        else:
            k.emit(f"{at} = wp.tile_load({a.name}, shape=({cm}, {ck}), offset=({i} * {cm}, {step} * {ck}))")
        k.emit(f"{bt} = wp.tile_load({b.name}, shape=({ck}, {cn}), offset=({step} * {ck}, {j} * {cn}))")
        if rng.random() < g.p.odds.gemm_accumulate_arg:
            k.emit(f"wp.tile_matmul({at}, {bt}, {acc}{scale})")
        else:
            k.emit(f"{acc} += wp.tile_matmul({at}, {bt}{scale})")
        k.indent -= 1
    out = _epilogue(g, acc, cm, cn, j, n, depth * (2.0 if alpha else 1.0) + 1.0)
    c = k.array(T.F32, "out", stem=rng.choice(("C", "c", "out")), ndim=2, shape=(m, n))
    k.emit(f"wp.tile_store({c.name}, {out}, {c_off})")


def _const(g: Gen, name: str, value: int) -> str:
    name = g.k.fresh(name)
    g.k.mod.consts[name] = f"{name} = wp.constant({value})"
    return name


def _trips(g: Gen, a: str, steps: int, ck: str) -> str:
    """The number of K steps: a module constant, an argument, or A's width in tiles."""
    r = g.rng.random()
    if r < g.p.odds.trips_const:
        return _const(g, "K_TILES", steps)
    if r < g.p.odds.trips_const + g.p.odds.trips_param:
        return g.k.size_param(steps, g.rng.choice(("k_tiles", "n_k", "k_steps"))).code
    return f"{a}.shape[1] // {ck}"


def _epilogue(g: Gen, acc: str, cm: str, cn: str, j: str, n: int, bound: float) -> str:
    """A bias row broadcast down the tile and/or an activation applied to each element."""
    k, rng = g.k, g.rng
    out = acc
    if rng.random() < g.p.tile_step:
        bias = k.array(T.F32, "in", (-1.0, 1.0), rng.choice(("bias", "b_row", "shift")), ndim=1, shape=(n,))
        bt = k.fresh(rng.choice(("bias_t", "tile_b", "row_bias")))
        k.emit(f"{bt} = wp.tile_load({bias.name}, shape={cn}, offset={j} * {cn})")
        nxt = k.fresh(rng.choice(("z", "biased", "pre")))
        k.emit(f"{nxt} = {out} + wp.tile_broadcast({bt}, shape=({cm}, {cn}))")
        out = nxt
    if rng.random() < g.p.tile_step:
        if rng.random() < g.p.odds.epilogue_builtin:
            fn = rng.choice(ACTIVATIONS)
        else:
            helpers.call_new(g, T.F32, 2, [E("x", T.F32, (-bound, bound), True)])
            fn = g.funcs[-1].name
        nxt = k.fresh(rng.choice(("y", "act", "h")))
        k.emit(f"{nxt} = wp.tile_map({fn}, {out})")
        out = nxt
    return out
