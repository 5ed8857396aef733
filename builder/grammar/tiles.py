"""Tile kernels: one block per row (or row block) loads tiles, maps, reduces, multiplies and stores them.

The executor launches them with ``wp.launch_tiled`` and the program's block
dim; tile shapes are module constants, as Warp code writes them. GEMMs are
in ``tiles_gemm``, kernels whose lanes loop on their own in ``tiles_lanes``.
"""

from __future__ import annotations

from builder.grammar import helpers, tiles_gemm, tiles_lanes
from builder.grammar import wtypes as T
from builder.grammar.expr import Gen
from builder.grammar.wtypes import E

MAP_FNS = ("wp.sin", "wp.cos", "wp.tanh", "wp.abs", "wp.exp")
PAIR_FNS = ("wp.add", "wp.sub", "wp.mul", "wp.max", "wp.min")


def tile_kernel(g: Gen) -> None:
    k, rng = g.k, g.rng
    k.block_dim = rng.choice((32, 64))
    r, p = rng.random(), g.p
    if r < p.tile_gemm:
        tiles_gemm.gemm(g)
    elif r < p.tile_gemm + p.tile_lanes:
        tiles_lanes.lanes(g)
    elif r < p.tile_gemm + p.tile_lanes + p.tile_blocks:
        _blocks(g)
    else:
        _rows(g)


def _const(g: Gen, stem: str, value: int) -> str:
    name = g.k.fresh(stem)
    g.k.mod.consts[name] = f"{name} = wp.constant({value})"
    return name


def _map_fn(g: Gen, iv) -> str:
    """A builtin or a generated helper applied element-wise by wp.tile_map."""
    if g.rng.random() < g.p.odds.map_builtin:
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
    if rng.random() < g.p.odds.rows_ramp:  # a ramp or an offset built in place: tile_arange / tile_ones / tile_full
        ramp = k.fresh(rng.choice(("ramp", "r", "offs")))
        make = rng.choice((f"wp.tile_arange({tile}, dtype=float)", f"wp.tile_ones(shape={tile}, dtype=float)"))
        if rng.random() < g.p.odds.ramp_param_level:  # a uniform level given by the caller
            level = k.param(T.F32, (0.5, 2.0), rng.choice(("gain", "level"))).code
            make = f"wp.tile_full({tile}, value={level}, dtype=float)"
        k.emit(f"{ramp} = {make}")
        nxt = k.fresh(rng.choice(("scaled", "tw", "shifted")))
        k.emit(f"{nxt} = wp.tile_map({rng.choice(('wp.mul', 'wp.add'))}, {cur}, {ramp})")
        cur = nxt
    if rng.random() < g.p.odds.rows_pair:
        y = k.array(T.F32, "in", (-1.0, 1.0), rng.choice(("y", "weights", "w", "scale")), ndim=2, shape=(rows, width))
        t2 = k.fresh(rng.choice(("ty", "b", "w_tile")))
        k.emit(f"{t2} = wp.tile_load({y.name}[{i}], shape={tile})")
        nxt = k.fresh(rng.choice(("prod", "c", "z")))
        k.emit(f"{nxt} = wp.tile_map({rng.choice(PAIR_FNS)}, {cur}, {t2})")
        cur = nxt
    if rng.random() < g.p.odds.rows_mapped:
        nxt = k.fresh(rng.choice(("u", "mapped", "act", "f")))
        k.emit(f"{nxt} = wp.tile_map({_map_fn(g, (-1.0, 1.0))}, {cur})")
        cur = nxt
    r = rng.random()
    if r < g.p.tile_step:
        _centered(g, cur, tile, (rows, width))
        return
    if r < g.p.tile_step * 1.3:
        _sorted(g, cur, tile, (rows, width))
        return
    kinds = rng.choice((("store",), ("sum",), ("store", "sum")))
    if "store" in kinds:
        out = k.array(T.F32, "out", stem=rng.choice(("out", "y_out", "result")), ndim=2, shape=(rows, width))
        k.emit(f"wp.tile_store({out.name}[{i}], {cur})")
    if "sum" in kinds:
        s = k.fresh(rng.choice(("s", "total_t", "row_sum")))
        k.emit(f"{s} = {_reduction(g, cur)}")
        # Stored by the block, never `sums[i] = wp.tile_extract(s, 0)` from every lane (4.2.1; that was drawn at
        # tile_step before): on an H200, Warp 1.19's CUDA adjoint of tile_extract adds the adjoint of every lane
        # that stored it, so a differentiable reduction (tile_sum, the squared norm) got block_dim times the
        # CPU's gradient (32x at block_dim 32, 64x at 64; docs/gpu-verification.md). The draw is kept so the
        # other programs stay as they were.
        if rng.random() >= g.p.tile_step and rng.random() < g.p.odds.row_sum_atomic:
            acc = k.array(T.F32, "acc", stem=rng.choice(("total", "loss", "sum_out")), ndim=1, length=1, op="add")
            k.emit(f"wp.tile_atomic_add({acc.name}, {s})")
        else:
            sums = k.array(T.F32, "out", stem=rng.choice(("row_sums", "sums", "norms")), ndim=1, shape=(rows,))
            k.emit(f"wp.tile_store({sums.name}, {s}, offset={i})")


def _blocks(g: Gen) -> None:
    """A 2-D block per launch index: accumulated in a zero tile, then stored, transposed, packed or reduced."""
    k, rng = g.k, g.rng
    rows = k.shape[0]
    tm, tn = rng.choice((4, 8)), rng.choice((8, 16))
    cm, cn = _const(g, "TILE_M", tm), _const(g, "TILE_N", tn)
    x = k.array(T.F32, "in", (-1.0, 1.0), rng.choice(("x", "field", "A")), ndim=2, shape=(rows * tm, tn))
    i = k.tid[0]
    t = k.fresh(rng.choice(("t", "block", "a")))
    if rng.random() < g.p.tile_step / 2:  # rows gathered through a permutation rather than read in order
        stem = rng.choice(("perm", "order", "rows"))
        perm = k.array(T.I32, "index", (0, rows * tm - 1), stem, ndim=1, shape=(rows * tm,))
        idx = k.fresh(rng.choice(("idx", "row_ids", "sel")))
        k.emit(f"{idx} = wp.tile_load({perm.name}, shape={cm}, offset={i} * {cm})")
        k.emit(f"{t} = wp.tile_load_indexed({x.name}, indices={idx}, shape=({cm}, {cn}), axis=0)")
    else:
        k.emit(f"{t} = wp.tile_load({x.name}, shape=({cm}, {cn}), offset=({i} * {cm}, 0))")
    acc = k.fresh(rng.choice(("acc", "sum_t", "total_t")))
    start = "wp.tile_zeros" if rng.random() < g.p.odds.blocks_start_zeros else "wp.tile_ones"
    k.emit(f"{acc} = {start}(shape=({cm}, {cn}), dtype=float)")
    k.emit(f"{acc} += wp.tile_map({_map_fn(g, (-1.0, 1.0))}, {t})")
    r = rng.random()
    if r < g.p.odds.blocks_add_tile:
        y = k.array(T.F32, "in", (-1.0, 1.0), rng.choice(("y", "B", "other")), ndim=2, shape=(rows * tm, tn))
        k.emit(f"{acc} += wp.tile_load({y.name}, shape=({cm}, {cn}), offset=({i} * {cm}, 0))")
    elif r < g.p.odds.blocks_add_tile + g.p.tile_step:  # one bias per column, broadcast down the block's rows
        bias = k.array(T.F32, "in", (-1.0, 1.0), rng.choice(("bias", "col_bias", "offset")), ndim=1, shape=(tn,))
        bt = k.fresh(rng.choice(("b", "bias_t", "row")))
        k.emit(f"{bt} = wp.tile_load({bias.name}, shape={cn})")
        k.emit(f"{acc} += wp.tile_broadcast({bt}, shape=({cm}, {cn}))")
    else:
        k.emit(f"{acc} += {t}")
    how = rng.choice(("transpose", "transpose", "store", "both", "pack", "rows"))
    if how in ("store", "both"):
        out = k.array(T.F32, "out", stem=rng.choice(("out", "y_out", "result")), ndim=2, shape=(rows * tm, tn))
        k.emit(f"wp.tile_store({out.name}, {acc}, offset=({i} * {cm}, 0))")
    if how in ("transpose", "both"):
        out = k.array(T.F32, "out", stem=rng.choice(("out_t", "transposed", "yt")), ndim=2, shape=(tn, rows * tm))
        k.emit(f"wp.tile_store({out.name}, wp.tile_transpose({acc}), offset=(0, {i} * {cm}))")
    if how == "pack":  # [input | result] side by side in one wide tile, stored at once
        wide = _const(g, "PACKED_N", 2 * tn)
        packed = k.fresh(rng.choice(("packed", "pair", "wide")))
        make = rng.choice(("tile_zeros", "tile_empty"))
        k.emit(f"{packed} = wp.{make}(shape=({cm}, {wide}), dtype=float)")
        k.emit(f"wp.tile_assign({packed}, {t}, offset=(0, 0))")
        k.emit(f"wp.tile_assign({packed}, {acc}, offset=(0, {cn}))")
        out = k.array(T.F32, "out", stem=rng.choice(("out", "packed_out", "both")), ndim=2, shape=(rows * tm, 2 * tn))
        k.emit(f"wp.tile_store({out.name}, {packed}, offset=({i} * {cm}, 0))")
    if how == "rows":  # one value per row of the block: a reduction along the columns
        op = rng.choice(("wp.add", "wp.max", "wp.min"))
        out = k.array(T.F32, "out", stem=rng.choice(("row_out", "row_max", "per_row")), ndim=1, shape=(rows * tm,))
        k.emit(f"wp.tile_store({out.name}, wp.tile_reduce({op}, {acc}, axis=1), offset={i} * {cm})")


def _reduction(g: Gen, t: str) -> str:
    """A whole-tile reduction to one element: a sum, a builtin operator, an extreme, or a squared norm."""
    r, odds = g.rng.random(), g.p.odds
    if r < odds.reduce_sum:
        return f"wp.tile_sum({t})"
    if r < odds.reduce_sum + odds.reduce_op:
        return f"wp.tile_reduce({g.rng.choice(('wp.add', 'wp.max', 'wp.min'))}, {t})"
    if r < odds.reduce_sum + odds.reduce_op + odds.reduce_extreme:
        return f"wp.tile_{g.rng.choice(('max', 'min'))}({t})"
    # the element-wise square summed (4.2.0; wp.tile_dot(t, t) before). The one GPU mismatch that led here was the
    # every-lane `tile_extract` store of the result (see _rows), not tile_dot: with tile_sum it gave the same
    # block_dim-fold gradient on an H200
    return f"wp.tile_sum(wp.tile_map(wp.mul, {t}, {t}))"


def _centered(g: Gen, t: str, tile: str, shape: tuple[int, int]) -> None:
    """The row minus its own max, min or mean, stored: a reduction broadcast back over the row."""
    k, rng = g.k, g.rng
    i = k.tid[0]
    red = k.fresh(rng.choice(("m", "peak", "ref")))
    if rng.random() < g.p.odds.centered_extreme:
        k.emit(f"{red} = {rng.choice(('wp.tile_max', 'wp.tile_min'))}({t})")
        back = f"wp.tile_broadcast({red}, shape=({tile},))"
    else:
        k.emit(f"{red} = wp.tile_extract(wp.tile_sum({t}), 0) / float({tile})")
        back = f"wp.tile_full({tile}, value={red}, dtype=float)"
    nxt = k.fresh(rng.choice(("centered", "shifted", "d")))
    k.emit(f"{nxt} = wp.tile_map(wp.sub, {t}, {back})")
    out = k.array(T.F32, "out", stem=rng.choice(("out", "y_out", "centered_out")), ndim=2, shape=shape)
    k.emit(f"wp.tile_store({out.name}[{i}], {nxt})")


def _sorted(g: Gen, t: str, tile: str, shape: tuple[int, int]) -> None:
    """The row sorted in place, with the permutation that sorts it (tile_sort carries an index ramp along)."""
    k, rng = g.k, g.rng
    i = k.tid[0]
    order = k.fresh(rng.choice(("order", "perm", "idx")))
    k.emit(f"{order} = wp.tile_arange({tile}, dtype=int)")
    k.emit(f"wp.tile_sort({t}, {order})")
    out = k.array(T.F32, "out", stem=rng.choice(("sorted_out", "ranked", "out")), ndim=2, shape=shape)
    k.emit(f"wp.tile_store({out.name}[{i}], {t})")
    perm = k.array(T.I32, "out", stem=rng.choice(("perm_out", "ranks", "argsort")), ndim=2, shape=shape)
    k.emit(f"wp.tile_store({perm.name}[{i}], {order})")
