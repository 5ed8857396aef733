"""Tile kernels: one block per row (or row block) loads tiles, maps, reduces, multiplies and stores them.

The executor launches them with ``wp.launch_tiled`` and the program's block
dim; tile shapes are module constants, as Warp code writes them.
"""

from __future__ import annotations

from builder.grammar import helpers
from builder.grammar import wtypes as T
from builder.grammar.expr import Gen
from builder.grammar.wtypes import E

MAP_FNS = ("wp.sin", "wp.cos", "wp.tanh", "wp.abs", "wp.exp")
PAIR_FNS = ("wp.add", "wp.sub", "wp.mul", "wp.max", "wp.min")


def tile_kernel(g: Gen) -> None:
    k, rng = g.k, g.rng
    k.block_dim = rng.choice((32, 64))
    # wp.tile_matmul is left out: its code generation needs the compile target's architecture, which
    # the emitted translation units do not fix
    if rng.random() < 0.4:
        _blocks(g)
    else:
        _rows(g)


def _const(g: Gen, stem: str, value: int) -> str:
    name = g.k.fresh(stem)
    g.k.consts[name] = f"{name} = wp.constant({value})"
    return name


def _map_fn(g: Gen, iv) -> str:
    """A builtin or a generated helper applied element-wise by wp.tile_map."""
    if g.rng.random() < 0.35:
        return g.rng.choice(MAP_FNS)
    helpers.call_new(g, T.F32, 2, [E("x", T.F32, iv, True)])
    return g.funcs[-1].name


def _rows(g: Gen) -> None:
    k, rng = g.k, g.rng
    rows = k.shape[0]
    width = rng.choice((16, 32, 64))
    tile = _const(g, rng.choice(("TILE", "TILE_SIZE", "TILE_N", "BLOCK")), width)
    x = k.array(T.F32, "in", (-1.0, 1.0), rng.choice(("x", "data", "values", "inputs")), ndim=2, shape=(rows, width))
    i = k.tid[0]
    t = k.fresh(rng.choice(("t", "tx", "a", "tile")))
    k.emit(f"{t} = wp.tile_load({x.name}[{i}], shape={tile})")
    cur = t
    if rng.random() < 0.3:  # a ramp or an offset built in place: tile_arange / tile_ones
        ramp = k.fresh(rng.choice(("ramp", "r", "offs")))
        make = rng.choice((f"wp.tile_arange({tile}, dtype=float)", f"wp.tile_ones(shape={tile}, dtype=float)"))
        k.emit(f"{ramp} = {make}")
        nxt = k.fresh(rng.choice(("scaled", "tw", "shifted")))
        k.emit(f"{nxt} = wp.tile_map({rng.choice(('wp.mul', 'wp.add'))}, {cur}, {ramp})")
        cur = nxt
    if rng.random() < 0.5:
        y = k.array(T.F32, "in", (-1.0, 1.0), rng.choice(("y", "weights", "w", "scale")), ndim=2, shape=(rows, width))
        t2 = k.fresh(rng.choice(("ty", "b", "w_tile")))
        k.emit(f"{t2} = wp.tile_load({y.name}[{i}], shape={tile})")
        nxt = k.fresh(rng.choice(("prod", "c", "z")))
        k.emit(f"{nxt} = wp.tile_map({rng.choice(PAIR_FNS)}, {cur}, {t2})")
        cur = nxt
    if rng.random() < 0.7:
        nxt = k.fresh(rng.choice(("u", "mapped", "act", "f")))
        k.emit(f"{nxt} = wp.tile_map({_map_fn(g, (-1.0, 1.0))}, {cur})")
        cur = nxt
    kinds = rng.choice((("store",), ("sum",), ("store", "sum")))
    if "store" in kinds:
        out = k.array(T.F32, "out", stem=rng.choice(("out", "y_out", "result")), ndim=2, shape=(rows, width))
        k.emit(f"wp.tile_store({out.name}[{i}], {cur})")
    if "sum" in kinds:
        s = k.fresh(rng.choice(("s", "total_t", "row_sum")))
        k.emit(f"{s} = wp.tile_sum({cur})")
        if rng.random() < 0.5:
            acc = k.array(T.F32, "acc", stem=rng.choice(("total", "loss", "sum_out")), ndim=1, length=1, op="add")
            k.emit(f"wp.tile_atomic_add({acc.name}, {s})")
        else:
            sums = k.array(T.F32, "out", stem=rng.choice(("row_sums", "sums", "norms")), ndim=1, shape=(rows,))
            k.emit(f"wp.tile_store({sums.name}, {s}, offset={i})")


def _blocks(g: Gen) -> None:
    """A 2-D block per launch index: accumulated in a zero tile, stored as is and/or transposed."""
    k, rng = g.k, g.rng
    rows = k.shape[0]
    tm, tn = rng.choice((4, 8)), rng.choice((8, 16))
    cm, cn = _const(g, "TILE_M", tm), _const(g, "TILE_N", tn)
    x = k.array(T.F32, "in", (-1.0, 1.0), rng.choice(("x", "field", "A")), ndim=2, shape=(rows * tm, tn))
    i = k.tid[0]
    t = k.fresh(rng.choice(("t", "block", "a")))
    k.emit(f"{t} = wp.tile_load({x.name}, shape=({cm}, {cn}), offset=({i} * {cm}, 0))")
    acc = k.fresh(rng.choice(("acc", "sum_t", "total_t")))
    k.emit(f"{acc} = wp.tile_zeros(shape=({cm}, {cn}), dtype=float)")
    k.emit(f"{acc} += wp.tile_map({_map_fn(g, (-1.0, 1.0))}, {t})")
    if rng.random() < 0.5:
        y = k.array(T.F32, "in", (-1.0, 1.0), rng.choice(("y", "bias", "B")), ndim=2, shape=(rows * tm, tn))
        k.emit(f"{acc} += wp.tile_load({y.name}, shape=({cm}, {cn}), offset=({i} * {cm}, 0))")
    else:
        k.emit(f"{acc} += {t}")
    how = rng.choice(("transpose", "transpose", "store", "both"))
    if how in ("store", "both"):
        out = k.array(T.F32, "out", stem=rng.choice(("out", "y_out", "result")), ndim=2, shape=(rows * tm, tn))
        k.emit(f"wp.tile_store({out.name}, {acc}, offset=({i} * {cm}, 0))")
    if how in ("transpose", "both"):
        out = k.array(T.F32, "out", stem=rng.choice(("out_t", "transposed", "yt")), ndim=2, shape=(tn, rows * tm))
        k.emit(f"wp.tile_store({out.name}, wp.tile_transpose({acc}), offset=(0, {i} * {cm}))")
