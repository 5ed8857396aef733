"""Per-lane tile kernels: each thread of a block strides over its row, and the block combines through a tile.

``i, lane = wp.tid()`` gives the row (the block) and the thread's lane; the lanes step by ``wp.block_dim()``,
so the result does not depend on the block size (Warp runs CPU blocks with a single lane). Row widths are
multiples of every block size the generator launches with, so every lane makes the same number of steps and
reaches the cooperative calls together.
"""

from __future__ import annotations

from builder.grammar import helpers
from builder.grammar import wtypes as T
from builder.grammar.expr import Gen
from builder.grammar.wtypes import E


def lanes(g: Gen) -> None:
    k, rng = g.k, g.rng
    rows = k.shape[0]
    k.relaunch((rows,), (rng.choice(("i", "row", "b")), rng.choice(("lane", "t", "j"))))
    width = rng.choice((64, 128))
    cols = _const(g, rng.choice(("WIDTH", "N_COLS", "ROW_LEN")), width)
    x = k.array(T.F32, "in", (-1.0, 1.0), rng.choice(("x", "values", "samples")), ndim=2, shape=(rows, width))
    if rng.random() < g.p.odds.lanes_histogram:
        _histogram(g, x.name, cols)
    else:
        _row_total(g, x.name, cols, width)


def _const(g: Gen, name: str, value: int) -> str:
    name = g.k.fresh(name)
    g.k.mod.consts[name] = f"{name} = wp.constant({value})"
    return name


def _strided(g: Gen, cols: str) -> str:
    """Open ``for c in range(lane, cols, wp.block_dim())``; return the loop variable."""
    k = g.k
    c = k.fresh(g.rng.choice(("c", "col", "n")))
    k.emit(f"for {c} in range({k.tid[1]}, {cols}, wp.block_dim()):")
    k.indent += 1
    return c


def _element(g: Gen, x: str, c: str, width: int) -> str:
    """Per-element work: a generated helper of the value, or the value scaled by a per-column weight."""
    k, rng = g.k, g.rng
    v = f"{x}[{k.tid[0]}, {c}]"
    if rng.random() < g.p.odds.lanes_weighted:
        w = k.array(T.F32, "in", (0.0, 1.0), rng.choice(("w", "weights", "gain")), ndim=1, shape=(width,))
        return f"{v} * {w.name}[{c}]"
    helpers.call_new(g, T.F32, 2, [E("x", T.F32, (-1.0, 1.0), True)])
    return f"{g.funcs[-1].name}({v})"


def _row_total(g: Gen, x: str, cols: str, width: int) -> None:
    """Each lane sums its share; the block sums the lanes (tile_sum or tile_reduce) and one lane writes it."""
    k, rng = g.k, g.rng
    i, lane = k.tid
    part = k.fresh(rng.choice(("partial", "acc", "local_sum")))
    k.emit(f"{part} = float(0.0)")
    c = _strided(g, cols)
    k.emit(f"{part} += {_element(g, x, c, width)}")
    k.indent -= 1
    lanes_t = k.fresh(rng.choice(("t", "lanes", "parts")))
    k.emit(f"{lanes_t} = wp.tile({part})")
    s = k.fresh(rng.choice(("s", "total_t", "block_sum")))
    k.emit(
        f"{s} = "
        + (
            f"wp.tile_sum({lanes_t})"
            if rng.random() < g.p.odds.tile_sum_spelled
            else f"wp.tile_reduce(wp.add, {lanes_t})"
        )
    )
    out = k.array(T.F32, "out", stem=rng.choice(("totals", "row_sums", "out")), ndim=1, shape=(k.shape[0],))
    if rng.random() < g.p.odds.lanes_store_total:
        k.emit(f"wp.tile_store({out.name}, {s}, offset={i})")
        return
    total = k.fresh(rng.choice(("total", "row_total", "sum_v")))
    k.emit(f"{total} = wp.tile_extract({s}, 0)")
    value = total
    if rng.random() < g.p.tile_step:
        value = f"{total} / float({cols})"
    first = rng.choice((f"{lane} == 0", f"{lane} == wp.block_dim() - 1"))
    k.emit(f"if {first}:")
    k.emit(f"    {out.name}[{i}] = {value}")


def _histogram(g: Gen, x: str, cols: str) -> None:
    """Each lane bins its values into a shared tile with tile_scatter_add; the block stores the row's bins."""
    k, rng = g.k, g.rng
    i = k.tid[0]
    nb = rng.choice((8, 16))
    bins_c = _const(g, rng.choice(("NUM_BINS", "BINS", "N_BINS")), nb)
    bins = k.fresh(rng.choice(("bins", "hist_t", "counts")))
    k.emit(f'{bins} = wp.tile_zeros(shape={bins_c}, dtype=float, storage="shared")')
    c = _strided(g, cols)
    v = k.fresh(rng.choice(("v", "val", "s")))
    k.emit(f"{v} = {x}[{i}, {c}]")
    b = k.fresh(rng.choice(("bin", "slot", "b")))
    if rng.random() < g.p.odds.histogram_clamp:
        k.emit(f"{b} = wp.clamp(int(({v} + 1.0) * 0.5 * float({bins_c})), 0, {bins_c} - 1)")
    else:
        k.emit(f"{b} = wp.min(int(({v} + 1.0) * 0.5 * float({bins_c})), {bins_c} - 1)")
    weight = "1.0" if rng.random() < g.p.odds.histogram_unit_weight else rng.choice((f"wp.abs({v})", f"{v} * {v}"))
    k.emit(f"wp.tile_scatter_add({bins}, {b}, {weight}, True)")
    k.indent -= 1
    hist = k.array(T.F32, "out", stem=rng.choice(("hist", "histogram", "bin_counts")), ndim=2, shape=(k.shape[0], nb))
    if rng.random() < g.p.odds.histogram_store_row:
        k.emit(f"wp.tile_store({hist.name}[{i}], {bins})")
    else:  # a one-row tile stored into the row of the 2-D histogram
        k.emit(f"wp.tile_store({hist.name}, wp.tile_reshape({bins}, shape=(1, {bins_c})), offset=({i}, 0))")
