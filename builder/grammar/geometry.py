"""Geometry kernels: closest points on a mesh, hash-grid neighbour sums, volume samples, spatial hashing.

The executor builds the scene (builder.grammar.wtypes describes it: a small
height-field mesh, a volume, a hash grid over the kernel's own points), so a
query always has something to find.
"""

from __future__ import annotations

from builder.grammar import wtypes as T
from builder.grammar.expr import Gen
from builder.grammar.idioms import combine, depth, write
from builder.grammar.program import Param
from builder.grammar.scope import Local
from builder.grammar.wtypes import ADD, ATOM, MUL, E

VEC3 = T.VEC[3]


def _handle(g: Gen, stem: str, kind: str) -> str:
    p = Param(g.k.fresh(stem), T.U64, (0, 0), kind)
    g.k.args.append(p)
    return p.name


def _local(g: Gen, stem: str, t, code: str, iv, outer: bool = False) -> E:
    name = g.k.fresh(stem)
    g.k.emit(f"{name} = {code}")
    g.k.frames.add(Local(name, t, iv, True), outer)
    return E(name, t, iv, True)


def geometry(g: Gen) -> None:
    k, rng = g.k, g.rng
    pts = k.array(VEC3, "in", (-1.5, 1.5), rng.choice(("points", "positions", "query_points", "x")))
    p = k.load(pts)
    kinds = rng.sample(("mesh", "grid", "volume"), rng.choice((1, 1, 2)))
    terms = []
    for kind in kinds:
        terms.append({"mesh": _mesh, "grid": _grid, "volume": _volume}[kind](g, p, pts.name))
    value = terms[0]
    for t in terms[1:]:
        value = E(f"{value.at(ADD)} + {t.at(ADD)}", T.F32, T.iv_add(value.iv, t.iv), True, ADD)
    write(g, T.F32, combine(g, value, 0.8))


def _mesh(g: Gen, p: E, _points: str) -> E:
    k, rng = g.k, g.rng
    mesh = _handle(g, rng.choice(("mesh", "mesh_id", "surface")), "mesh")
    if rng.random() < 0.35:  # a point given by a face and barycentric coordinates
        face = k.array(T.I32, "index", (0, T.MESH_FACES - 1), rng.choice(("faces", "tri_ids", "face_index")))
        u = g.bounded(g.expr(T.F32, 1, True), 0.45)
        x = _local(g, "x", VEC3, f"wp.mesh_eval_position({mesh}, {face.name}[{k.own}], {u.code}, 0.25)", T.sym(1.5))
        return E(f"wp.length({p.code} - {x.code})", T.F32, (0.0, 6.0), True)
    max_dist = rng.choice(("10.0", "1.0e6", "4.0"))
    q = k.fresh(rng.choice(("q", "query", "hit")))
    k.emit(f"{q} = wp.mesh_query_point_no_sign({mesh}, {p.code}, {max_dist})")
    d = k.fresh(rng.choice(("d", "dist", "sdf")))
    k.emit(f"{d} = float(0.0)")
    k.emit(f"if {q}.result:")
    cp = k.fresh(rng.choice(("cp", "closest", "x")))
    k.emit(f"    {cp} = wp.mesh_eval_position({mesh}, {q}.face, {q}.u, {q}.v)")
    k.emit(f"    {d} = wp.length({p.code} - {cp})")
    k.frames.add(Local(d, T.F32, (0.0, 6.0), True))
    return E(d, T.F32, (0.0, 6.0), True)


def _grid(g: Gen, p: E, points: str) -> E:
    k, rng = g.k, g.rng
    grid = _handle(g, rng.choice(("grid", "grid_id", "hash_grid")), f"hash_grid:{points}")
    radius = k.param(T.F32, (0.2, 0.5), rng.choice(("radius", "h", "cutoff")))
    q, j = k.fresh("query"), k.fresh(rng.choice(("index", "j", "nbr")))
    acc = k.fresh(rng.choice(("rho", "count", "w_sum")))
    k.emit(f"{q} = wp.hash_grid_query({grid}, {p.code}, {radius.code})")
    k.emit(f"{j} = int(0)")
    k.emit(f"{acc} = float(0.0)")
    k.emit(f"while wp.hash_grid_query_next({q}, {j}):")
    r2 = k.fresh(rng.choice(("r2", "d2", "dist_sq")))
    k.emit(f"    {r2} = wp.length_sq({p.code} - {points}[{j}])")
    k.emit(f"    if {r2} < {radius.code} * {radius.code}:")
    # weighted by the neighbour's own value: a lone point still sees itself, with its own weight
    w = k.array(T.F32, "in", (0.5, 2.0), rng.choice(("mass", "weights", "masses")))
    k.emit(f"        {acc} += {w.name}[{j}] * ({radius.code} * {radius.code} - {r2})")
    k.frames.add(Local(acc, T.F32, (0.0, 80.0), True))
    return E(acc, T.F32, (0.0, 80.0), True)


def _volume(g: Gen, p: E, _points: str) -> E:
    rng = g.rng
    vol = _handle(g, rng.choice(("volume", "sdf_volume", "density_vol")), "volume")
    uvw = _local(
        g, rng.choice(("uvw", "idx_p", "coord")), VEC3, f"wp.volume_world_to_index({vol}, {p.code})", (0.0, 8.0)
    )
    mode = rng.choice(("LINEAR", "LINEAR", "CLOSEST"))
    sample = E(f"wp.volume_sample_f({vol}, {uvw.code}, wp.Volume.{mode})", T.F32, (-1.0, 1.0), True)
    if rng.random() < 0.4:  # one voxel step in world units, along the point's direction
        step = _local(
            g,
            rng.choice(("step", "dx_w")),
            VEC3,
            f"wp.volume_index_to_world_dir({vol}, wp.normalize({p.code}))",
            T.sym(T.VOLUME_VOXEL),
        )
        return E(f"{sample.code} * wp.length({step.code})", T.F32, T.sym(T.VOLUME_VOXEL * 1.8), True, MUL)
    if rng.random() < 0.3:  # the voxel centre's world position
        floors = ", ".join(f"wp.floor({uvw.at(ATOM)}[{c}])" for c in range(3))
        c = _local(
            g,
            rng.choice(("centre", "xw")),
            VEC3,
            f"wp.volume_index_to_world({vol}, wp.vec3({floors}))",
            T.sym(3.0),
        )
        return E(f"{sample.at(ADD)} + wp.length({p.code} - {c.code})", T.F32, (-1.0, 8.0), True, ADD)
    return sample


def spatial_hash(g: Gen) -> None:
    """Cell coordinates of a point (wp.vec3i / wp.vec2i), their hash, and a count per bucket."""
    k, rng = g.k, g.rng
    n = rng.choice((2, 3))
    vt, it = T.VEC[n], (T.VEC2I if n == 2 else T.VEC3I)
    pts = k.array(vt, "in", (-2.0, 2.0), rng.choice(("positions", "points", "x", "particle_x")))
    p = k.load(pts)
    inv = k.param(T.F32, (0.5, 2.0), rng.choice(("inv_cell_size", "inv_dx", "cell_scale")))
    if rng.random() < 0.5:  # relative to a grid origin
        origin = k.param(vt, (-1.0, 1.0), rng.choice(("origin", "lower", "grid_min")))
        p = _local(g, rng.choice(("local_p", "rel", "q")), vt, f"{p.code} - {origin.code}", T.sym(3.0))
    if rng.random() < 0.5:
        comps = ", ".join(f"int(wp.floor({p.at(ATOM)}[{c}] * {inv.code}))" for c in range(n))
    else:
        comps = ", ".join(f"int({p.at(ATOM)}[{c}] * {inv.code})" for c in range(n))
    cell = _local(g, rng.choice(("cell", "c", "ijk")), it, f"{it.spelling}({comps})", (-5, 5))
    primes = rng.choice(((73856093, 19349663, 83492791), (92837111, 689287499, 283923481)))[:n]
    primes = tuple(p_ % 1000 + 1 for p_ in primes)  # small: the hash never overflows int32
    op = rng.choice(("^", "+"))
    h = f" {op} ".join(f"{cell.at(ATOM)}[{c}] * {primes[c]}" for c in range(n))
    nb = rng.choice((16, 32, 64))
    buckets = k.const(T.I32, nb, rng.choice(("num_buckets", "table_size"))) if rng.random() < 0.5 else None
    size = buckets.code if buckets else str(nb)
    key = _local(g, rng.choice(("key", "bucket", "h")), T.I32, f"wp.abs({h}) % {size}", (0, nb - 1))
    uses = rng.sample(("keys", "counts", "cells"), rng.choice((1, 2, 3)))
    if "keys" in uses:
        write(g, T.I32, key)
    if "counts" in uses:
        acc = k.array(T.I32, "acc", stem=rng.choice(("counts", "bucket_count", "hist")), ndim=1, length=nb, op="add")
        k.emit(f"wp.atomic_add({acc.name}, {key.code}, 1)")
    if "cells" in uses:
        out = k.array(it, "out", stem=rng.choice(("cells", "cell_out", "coords")))
        k.emit(f"{out.name}[{k.own}] = {cell.code}")
    if uses == ["cells"] or rng.random() < 0.6:
        w = g.expr(T.F32, depth(g) - 1, True)
        acc = k.array(
            T.F32, "acc", stem=rng.choice(("bucket_sum", "mass_per_cell", "sums")), ndim=1, length=nb, op="add"
        )
        k.emit(f"wp.atomic_add({acc.name}, {key.code}, {w.code})")
