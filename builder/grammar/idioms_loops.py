"""Kernel bodies that gather or scatter across threads: atomics, CSR rows, all-pairs neighbour loops."""

from __future__ import annotations

from builder.grammar import wtypes as T
from builder.grammar.expr import Gen
from builder.grammar.idioms import combine, count_to_float, depth, guard, output_count, write
from builder.grammar.scope import Local
from builder.grammar.wtypes import ADD, ATOM, MUL, E, WType, fmt_float, lit, mag

VEC3 = T.VEC[3]


def reduction(g: Gen) -> None:
    """Values reduced across threads: an atomic total, a block-wide tile sum, an extremum, per-segment sums, a
    histogram, or (among them) a plain per-thread output."""
    k, rng = g.k, g.rng
    guard(g)
    for _ in range(output_count(g)):
        t = rng.choice(g.p.out_types())
        kinds = ("total", "segment", "histogram", "extrema", "output") if t == T.F32 else ("total", "segment")
        # a tile is a collective of the whole block: never after an early exit some threads took
        block = t == T.F32 and not k.guard
        if block and rng.random() < g.p.block_reduce:
            kind = "block"
        else:
            kind = rng.choice(kinds + (("block",) if block else ()))
        if kind == "output":
            write(g, t, g.expr(t, depth(g), True))
        elif kind == "histogram":
            _histogram(g)
        else:
            _REDUCE[kind](g, t, g.expr(t, depth(g), True))


def _total(g: Gen, t: WType, value: E) -> None:
    k, rng = g.k, g.rng
    op = "sub" if rng.random() < g.p.odds.total_subtracted else "add"
    if t == VEC3 and rng.random() < g.p.odds.total_in_double:  # many float32 terms summed into a double total
        if "(" in value.code or value.prec != ATOM:
            value = k.bind(rng.choice(("v", "term", "share")), value)
        value, t = E(f"wp.vec3d({value.code})", T.VEC3D, value.iv, True), T.VEC3D
    acc = k.array(t, "acc", stem=rng.choice(("total", "sum_out", "loss", "energy")), ndim=1, length=1, op=op)
    if rng.random() < g.p.odds.total_plus_equals and t == T.F32 and op == "add":
        k.emit(f"{acc.name}[0] += {value.code}")
    else:
        k.emit(f"wp.atomic_{op}({acc.name}, 0, {value.code})")


def _block(g: Gen, t: WType, value: E) -> None:
    """The block's values as one tile, summed, one atomic per block."""
    k, rng = g.k, g.rng
    tv = k.fresh(rng.choice(("t", "tile_v", "vals")))
    s = k.fresh(rng.choice(("s", "block_sum", "partial")))
    acc = k.array(t, "acc", stem=rng.choice(("total", "norm_sq", "loss")), ndim=1, length=1, op="add")
    if value.prec != 100 or "[" in value.code or "(" in value.code:  # wp.tile takes a local value
        value = k.bind(rng.choice(("v", "val", "share")), value)
    k.emit(f"{tv} = wp.tile({value.code})")
    k.emit(f"{s} = wp.tile_sum({tv})")
    k.emit(f"wp.tile_atomic_add({acc.name}, {s})")
    if rng.random() < g.p.odds.block_mapped_out:
        out = k.array(t, "out", stem=rng.choice(("y", "mapped", "out")))
        fn = rng.choice(("wp.sin", "wp.tanh", "wp.abs"))
        k.emit(f"{out.name}[{k.own}] = wp.untile(wp.tile_map({fn}, {tv}))")


def _extrema(g: Gen, t: WType, value: E) -> None:
    k, rng = g.k, g.rng
    op = rng.choice(("max", "min"))
    stem = f"{op}_value" if rng.random() < g.p.odds.extrema_long_name else f"v{op}"
    init = -1.0e6 if op == "max" else 1.0e6
    acc = k.array(t, "acc", stem=stem, ndim=1, length=1, op=op, init=init)
    k.emit(f"wp.atomic_{op}({acc.name}, 0, {value.code})")


def _segment(g: Gen, t: WType, value: E) -> None:
    """Sums per segment (a body, a cluster) given by an index array."""
    k, rng = g.k, g.rng
    nb = rng.choice((4, 8, 16))
    seg = k.array(T.I32, "index", (0, nb - 1), rng.choice(("group_ids", "segment_ids", "cluster", "body_id")))
    stem = rng.choice(("sums", "body_f", "cluster_sum", "per_body"))
    acc = k.array(t, "acc", stem=stem, ndim=1, length=nb, op="add")
    idx = k.fresh(rng.choice(("s", "seg", "b", "c")))
    k.emit(f"{idx} = {seg.name}[{k.own}]")
    k.emit(f"wp.atomic_add({acc.name}, {idx}, {value.code})")


_REDUCE = {"total": _total, "block": _block, "extrema": _extrema, "segment": _segment}


def _histogram(g: Gen) -> None:
    k, rng = g.k, g.rng
    x = g.expr(T.F32, depth(g) - 1, True)
    nb = rng.choice((8, 16, 32))
    lo, hi = x.iv
    if hi - lo < 1e-3:
        hi = lo + 1.0
    scale = float(fmt_float(nb / (hi - lo)))
    b = k.fresh(rng.choice(("b", "bin", "bucket")))
    shifted = f"{x.at(ADD)} - {lit(T.F32, lo)}" if lo > 0 else f"{x.at(ADD)} + {lit(T.F32, -lo)}" if lo < 0 else x.code
    k.emit(f"{b} = wp.clamp(int(({shifted}) * {fmt_float(scale)}), 0, {nb - 1})")
    if rng.random() < g.p.odds.histogram_counts:
        hist = k.array(T.I32, "acc", stem=rng.choice(("hist", "counts", "bins")), ndim=1, length=nb, op="add")
        k.emit(f"wp.atomic_add({hist.name}, {b}, 1)")
    else:
        w = g.expr(T.F32, 1, True, avoid=b)
        hist = k.array(T.F32, "acc", stem=rng.choice(("hist", "weights_sum", "bins")), ndim=1, length=nb, op="add")
        k.emit(f"wp.atomic_add({hist.name}, {b}, {w.code})")


def _zero(t: WType) -> str:
    return "float(0.0)" if t == T.F32 else f"{t.spelling}(0.0)"


def sparse(g: Gen) -> None:
    """y[i] = sum over row i of a CSR matrix: for k in range(row_ptr[i], row_ptr[i + 1])."""
    k, rng = g.k, g.rng
    t = rng.choice(g.p.out_types())
    if rng.random() < g.p.odds.sparse_scatter:
        _scatter_nonzeros(g, t)
        return
    n = k.shape[0]
    nnz = n * rng.choice((2, 3, 4))
    ptr = k.array(
        T.I32,
        "index",
        (0, nnz),
        rng.choice(("row_ptr", "offsets", "indptr", "row_start")),
        ndim=1,
        shape=(n + 1,),
        fill="offsets",
    )
    cols = k.array(
        T.I32, "index", (0, n - 1), rng.choice(("cols", "col_idx", "indices", "neighbors")), ndim=1, shape=(nnz,)
    )
    vals = k.array(T.F32, "in", (-1.0, 1.0), rng.choice(("vals", "values", "weights", "a")), ndim=1, shape=(nnz,))
    x = k.array(t, "in", (-1.0, 1.0), rng.choice(("x", "src", "field", "u")))
    i = k.tid[0]
    start, end = k.fresh("start" if rng.random() < g.p.odds.csr_start_word else "beg"), k.fresh("end")
    k.emit(f"{start} = {ptr.name}[{i}]")
    k.emit(f"{end} = {ptr.name}[{i} + 1]")
    acc = k.fresh(rng.choice(("acc", "s", "total", "y")))
    k.emit(f"{acc} = {_zero(t)}")
    kk, j = k.fresh("k" if "k" not in k.mod.used else "e"), k.fresh("j" if "j" not in k.mod.used else "c")
    k.emit(f"for {kk} in range({start}, {end}):")
    k.emit(f"    {j} = {cols.name}[{kk}]")
    form = rng.choice(("spmv", "laplace", "abs"))
    if form == "laplace":
        xi = k.load(x)
        k.emit(f"    {acc} += {vals.name}[{kk}] * ({x.name}[{j}] - {xi.code})")
        iv = T.sym(8.0 * 2.0)
    elif form == "abs" and t == T.F32:
        k.emit(f"    {acc} += wp.abs({vals.name}[{kk}]) * {x.name}[{j}]")
        iv = T.sym(8.0)
    else:
        k.emit(f"    {acc} += {vals.name}[{kk}] * {x.name}[{j}]")
        iv = T.sym(8.0)
    if form == "spmv" and rng.random() < g.p.odds.spmv_mean:  # the mean over the row's entries
        k.emit(f"if {end} > {start}:")
        k.emit(f"    {acc} = {acc} / {count_to_float(g, f'{end} - {start}')}")
    value = E(acc, t, iv, True)
    if rng.random() < g.p.odds.sparse_offset:  # drawn before the sum is visible, so it cannot be a copy of it
        other = g.expr(t, depth(g) - 1, False, avoid=acc)
        op = rng.choice(("+", "-"))
        value = E(T.sum_code(acc, op, other), t, T.sym(mag(iv) + mag(other.iv)), True, ADD)
    k.frames.add(Local(acc, t, iv, True))
    write(g, t, combine(g, value, g.p.odds.sparse_combine))


def _scatter_nonzeros(g: Gen, t: WType) -> None:
    """One thread per stored entry of a CSR matrix: its row by binary search in the row offsets, y[row] += a * x."""
    k, rng = g.k, g.rng
    nnz = k.shape[0]
    rows = nnz // rng.choice((2, 4))
    stem = rng.choice(("row_ptr", "offsets", "indptr"))
    ptr = k.array(T.I32, "index", (0, nnz), stem, ndim=1, shape=(rows + 1,), fill="offsets")
    cols = k.array(T.I32, "index", (0, rows - 1), rng.choice(("cols", "col_idx", "indices")))
    vals = k.array(T.F32, "in", (-1.0, 1.0), rng.choice(("vals", "values", "entries")))
    x = k.array(t, "in", (-1.0, 1.0), rng.choice(("x", "src", "field")), ndim=1, shape=(rows,))
    e = k.tid[0]
    row = k.fresh(rng.choice(("row", "r", "i_row")))
    if rng.random() < g.p.odds.lower_bound_whole:
        k.emit(f"{row} = wp.lower_bound({ptr.name}, {e} + 1) - 1")
    else:  # the search range given explicitly, as Warp's sparse module writes it
        num_rows = k.size_param(rows, rng.choice(("num_rows", "row_count", "n_rows")))
        k.emit(f"{row} = wp.lower_bound({ptr.name}, 0, {num_rows.code} + 1, {e} + 1) - 1")
    a = E(f"{vals.name}[{e}]", T.F32, vals.iv, True)
    if rng.random() < g.p.odds.scatter_weighted:  # the entry scaled by another per-entry value
        w = g.bounded(g.expr(T.F32, 1, True, avoid=vals.name), 2.0)
        a = E(f"{a.code} * {w.at(MUL)}", T.F32, T.sym(2.0), True, MUL)
    y = k.array(t, "acc", stem=rng.choice(("y", "out", "result")), ndim=1, length=rows, op="add")
    k.emit(f"wp.atomic_add({y.name}, {row}, {a.at(MUL)} * {x.name}[{cols.name}[{e}]])")


def pairwise(g: Gen) -> None:
    """All-pairs interactions within a cutoff: SPH-like densities or pair forces."""
    k, rng = g.k, g.rng
    guard(g)
    n = k.size_param(k.shape[0], rng.choice(("n", "num_particles", "count")))
    pos = k.array(VEC3, "in", (-1.0, 1.0), rng.choice(("positions", "x", "points", "particle_x")))
    xi = k.load(pos)
    h = k.param(T.F32, (0.5, 1.5), rng.choice(("h", "radius", "cutoff", "smoothing")))
    density = rng.random() < g.p.odds.pairwise_density
    t = T.F32 if density else VEC3
    acc = k.fresh(rng.choice(("rho", "density", "w_sum")) if density else rng.choice(("f", "force", "f_sum")))
    k.emit(f"{acc} = {_zero(t)}")
    j = k.fresh("j")
    k.emit(f"for {j} in range({n.code}):")
    d, r2 = k.fresh(rng.choice(("d", "dx", "r_ab"))), k.fresh(rng.choice(("r2", "dist_sq", "d2")))
    k.emit(f"    {d} = {xi.code} - {pos.name}[{j}]")
    sq = f"wp.dot({d}, {d})" if rng.random() < g.p.odds.pairwise_dot else f"wp.length_sq({d})"
    k.emit(f"    {r2} = {sq}")
    near = f"{r2} < {h.code} * {h.code}"
    if rng.random() < g.p.odds.pairwise_skip_self:  # the particle itself left out, as real all-pairs loops do
        if rng.random() < g.p.odds.skip_self_continue:
            k.emit(f"    if {j} == {k.own}:")
            k.emit("        continue")
        else:
            near = f"{j} != {k.own} and {near}"
    k.emit(f"    if {near}:")
    if density:
        mass = rng.choice((None, "arr", "param"))
        m = ""
        if mass == "arr":
            m = f"{k.array(T.F32, 'in', (0.5, 2.0), rng.choice(('mass', 'masses', 'm'))).name}[{j}] * "
        elif mass == "param":
            m = f"{k.param(T.F32, (0.5, 2.0), rng.choice(('mass', 'particle_mass'))).code} * "
        w = k.fresh(rng.choice(("q", "w", "diff")))
        k.emit(f"        {w} = {h.code} * {h.code} - {r2}")
        k.emit(f"        {acc} += {m}{w} * {w} * {w}")
        iv = (0.0, n.iv[0] * 2.0 * 4.0)
    else:
        stiff = k.param(T.F32, (0.1, 2.0), rng.choice(("k", "stiffness", "ke")))
        r = k.fresh(rng.choice(("r", "dist")))
        k.emit(f"        {r} = wp.sqrt({r2} + 1.0e-6)")
        k.emit(f"        {acc} += {d} * ({stiff.code} * ({h.code} - {r}) / ({r} + 0.1))")
        iv = T.sym(n.iv[0] * 2.0 * 2.0 * 15.0)
    value = E(acc, t, iv, True)
    if rng.random() < g.p.odds.pairwise_scaled:
        s = g.bounded(g.expr(T.F32, 1, False), 4.0)
        value = E(f"{acc} * {s.at(MUL)}", t, T.sym(mag(iv) * mag(s.iv)), True, MUL)
    k.frames.add(Local(acc, t, iv, True))
    write(g, t, combine(g, value, g.p.odds.pairwise_combine))
