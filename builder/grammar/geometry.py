"""Geometry kernels: closest points on a mesh, hash-grid neighbour sums, volume samples, spatial hashing.

The executor builds the scene (builder.grammar.wtypes describes it: a small
height-field mesh, a volume, a hash grid over the kernel's own points), so a
query always has something to find.
"""

from __future__ import annotations

from builder.grammar import wtypes as T
from builder.grammar.expr import Gen
from builder.grammar.idioms import combine, count_to_float, depth, write
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
    write(g, T.F32, combine(g, value, g.p.odds.geometry_combine))


def _mesh(g: Gen, p: E, _points: str) -> E:
    k, rng = g.k, g.rng
    mesh = _handle(g, rng.choice(("mesh", "mesh_id", "surface")), "mesh")
    kind = rng.choice(("bary", "closest", "closest", "closest", "ray", "ray", "aabb"))
    if kind == "bary":  # a point given by a face and barycentric coordinates
        face = k.array(T.I32, "index", (0, T.MESH_FACES - 1), rng.choice(("faces", "tri_ids", "face_index")))
        u = g.bounded(g.expr(T.F32, 1, True), 0.45)
        x = _local(g, "x", VEC3, f"wp.mesh_eval_position({mesh}, {face.name}[{k.own}], {u.code}, 0.25)", T.sym(1.5))
        return E(f"wp.length({p.code} - {x.code})", T.F32, (0.0, 6.0), True)
    if kind == "ray":
        return _ray(g, mesh, p)
    if kind == "aabb":
        return _faces_near(g, mesh, p)
    max_dist = rng.choice(("10.0", "1.0e6", "4.0"))
    # the sign (inside or below the surface) from ray casts or from the closest face's normal
    query = rng.choice(("no_sign", "no_sign", "", "sign_normal"))
    q = k.fresh(rng.choice(("q", "query", "hit")))
    k.emit(f"{q} = wp.mesh_query_point{'_' + query if query else ''}({mesh}, {p.code}, {max_dist})")
    d = k.fresh(rng.choice(("d", "dist", "sdf")))
    k.emit(f"{d} = float(0.0)")
    k.emit(f"if {q}.result:")
    cp = k.fresh(rng.choice(("cp", "closest", "x")))
    k.emit(f"    {cp} = wp.mesh_eval_position({mesh}, {q}.face, {q}.u, {q}.v)")
    signed = f" * {q}.sign" if query != "no_sign" else ""
    k.emit(f"    {d} = wp.length({p.code} - {cp}){signed}")
    iv = (0.0, 6.0) if not signed else T.sym(6.0)
    k.frames.add(Local(d, T.F32, iv, True))
    return E(d, T.F32, iv, True)


def _ray(g: Gen, mesh: str, p: E) -> E:
    """The distance along a ray from the point to the surface (straight down, or toward the origin)."""
    k, rng = g.k, g.rng
    down = rng.random() < g.p.odds.ray_down
    if down:
        direction = "wp.vec3(0.0, 0.0, -1.0)"
    else:
        stem = rng.choice(("ray_dir", "dir", "d_ray"))
        direction = _local(g, stem, VEC3, f"wp.normalize(-{p.code})", T.sym(1.0)).code
    q = k.fresh(rng.choice(("q", "ray_hit", "hit")))
    k.emit(f"{q} = wp.mesh_query_ray({mesh}, {p.code}, {direction}, {rng.choice(('10.0', '1.0e6', '4.0'))})")
    t = k.fresh(rng.choice(("t_hit", "depth", "t")))
    k.emit(f"{t} = float(0.0)")
    k.emit(f"if {q}.result:")
    if rng.random() < g.p.odds.ray_plain_t:
        k.emit(f"    {t} = {q}.t")
    else:  # weighted by how squarely the ray meets the face
        k.emit(f"    {t} = {q}.t * wp.abs(wp.dot({q}.normal, {direction}))")
    k.frames.add(Local(t, T.F32, (0.0, 6.0), True))
    return E(t, T.F32, (0.0, 6.0), True)


def _faces_near(g: Gen, mesh: str, p: E) -> E:
    """How many triangles' bounding boxes overlap a box around the point."""
    k, rng = g.k, g.rng
    ext = k.param(VEC3, (0.2, 0.5), rng.choice(("half_extent", "extent", "box_half")))
    q, face = k.fresh(rng.choice(("query", "box_query"))), k.fresh(rng.choice(("face", "tri", "f")))
    n = k.fresh(rng.choice(("count", "num_faces", "n_hits")))
    k.emit(f"{q} = wp.mesh_query_aabb({mesh}, {p.code} - {ext.code}, {p.code} + {ext.code})")
    k.emit(f"{face} = int(0)")
    k.emit(f"{n} = int(0)")
    k.emit(f"while wp.mesh_query_aabb_next({q}, {face}):")
    k.emit(f"    {n} += 1")
    return E(count_to_float(g, n), T.F32, (0.0, float(T.MESH_FACES)), True)


def _grid(g: Gen, p: E, points: str) -> E:
    k, rng = g.k, g.rng
    grid = _handle(g, rng.choice(("grid", "grid_id", "hash_grid")), f"hash_grid:{points}")
    radius = k.param(T.F32, (0.2, 0.5), rng.choice(("radius", "h", "cutoff")))
    q, j = k.fresh("query"), k.fresh(rng.choice(("index", "j", "nbr")))
    acc = k.fresh(rng.choice(("rho", "count", "w_sum")))
    k.emit(f"{q} = wp.hash_grid_query({grid}, {p.code}, {radius.code})")
    k.emit(f"{j} = int(0)")
    k.emit(f"{acc} = float(0.0)")
    # or the mean over the neighbours found
    n = k.fresh(rng.choice(("n", "num_nbrs", "n_found"))) if rng.random() < g.p.odds.hash_grid_mean else ""
    if n:
        k.emit(f"{n} = int(0)")
    k.emit(f"while wp.hash_grid_query_next({q}, {j}):")
    r2 = k.fresh(rng.choice(("r2", "d2", "dist_sq")))
    k.emit(f"    {r2} = wp.length_sq({p.code} - {points}[{j}])")
    k.emit(f"    if {r2} < {radius.code} * {radius.code}:")
    # weighted by the neighbour's own value: a lone point still sees itself, with its own weight
    w = k.array(T.F32, "in", (0.5, 2.0), rng.choice(("mass", "weights", "masses")))
    k.emit(f"        {acc} += {w.name}[{j}] * ({radius.code} * {radius.code} - {r2})")
    k.frames.add(Local(acc, T.F32, (0.0, 80.0), True))
    if not n:
        return E(acc, T.F32, (0.0, 80.0), True)
    k.emit(f"        {n} += 1")
    # the adjoint pass does not replay the loop: the count it sees may be zero
    return E(f"{acc} / {count_to_float(g, f'wp.max({n}, 1)')}", T.F32, (0.0, 0.5), True, MUL)


def _volume(g: Gen, p: E, _points: str) -> E:
    rng = g.rng
    vol = _handle(g, rng.choice(("volume", "sdf_volume", "density_vol")), "volume")
    uvw = _local(
        g, rng.choice(("uvw", "idx_p", "coord")), VEC3, f"wp.volume_world_to_index({vol}, {p.code})", (0.0, 8.0)
    )
    if (
        rng.random() < g.p.odds.volume_voxel_value
    ):  # the value stored at the voxel the point falls in, without interpolation
        ijk = ", ".join(f"int({uvw.at(ATOM)}[{c}])" for c in range(3))
        code = rng.choice((f"wp.volume_lookup_f({vol}, {ijk})", f"wp.volume_lookup({vol}, {ijk}, dtype=float)"))
        return E(code, T.F32, (-1.0, 1.0), True)
    mode = rng.choice(("LINEAR", "LINEAR", "CLOSEST"))
    sample = E(f"wp.volume_sample_f({vol}, {uvw.code}, wp.Volume.{mode})", T.F32, (-1.0, 1.0), True)
    if rng.random() < g.p.odds.volume_voxel_step:  # one voxel step in world units, along the point's direction
        step = _local(
            g,
            rng.choice(("step", "dx_w")),
            VEC3,
            f"wp.volume_index_to_world_dir({vol}, wp.normalize({p.code}))",
            T.sym(T.VOLUME_VOXEL),
        )
        return E(f"{sample.code} * wp.length({step.code})", T.F32, T.sym(T.VOLUME_VOXEL * 1.8), True, MUL)
    if rng.random() < g.p.odds.volume_voxel_centre:  # the voxel centre's world position
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
    # cells no wider than a unit: points within [-2, 2] fall in several, whether coordinates truncate or floor
    inv = k.param(T.F32, (1.0, 3.0), rng.choice(("inv_cell_size", "inv_dx", "cell_scale")))
    if rng.random() < g.p.odds.cell_origin:  # relative to a grid origin
        origin = k.param(vt, (-1.0, 1.0), rng.choice(("origin", "lower", "grid_min")))
        p = _local(g, rng.choice(("local_p", "rel", "q")), vt, f"{p.code} - {origin.code}", T.sym(3.0))
    if rng.random() < g.p.odds.cell_floor:
        comps = ", ".join(f"int(wp.floor({p.at(ATOM)}[{c}] * {inv.code}))" for c in range(n))
    else:
        comps = ", ".join(f"int({p.at(ATOM)}[{c}] * {inv.code})" for c in range(n))
    cell = _local(g, rng.choice(("cell", "c", "ijk")), it, f"{it.spelling}({comps})", (-9, 9))
    primes = rng.choice(((73856093, 19349663, 83492791), (92837111, 689287499, 283923481)))[:n]
    op = rng.choice(("^", "+"))
    nb = rng.choice((16, 32, 64))
    buckets = (
        k.const(T.I32, nb, rng.choice(("num_buckets", "table_size")))
        if rng.random() < g.p.odds.hash_buckets_const
        else None
    )
    size = buckets.code if buckets else str(nb)
    if rng.random() < g.p.odds.hash_64bit:  # in 64 bits, where the large primes' products wrap instead of overflowing
        h = f" {op} ".join(f"wp.uint64({cell.at(ATOM)}[{c}]) * wp.uint64({primes[c]})" for c in range(n))
        hv = _local(g, rng.choice(("h", "h64", "hv")), T.U64, h, (0, 2**64 - 1))
        key = f"int({hv.code} % wp.uint64({size}))"
        key = _local(g, rng.choice(("key", "bucket", "slot")), T.I32, key, (0, nb - 1))
    else:
        primes = tuple(p_ % 1000 + 1 for p_ in primes)  # small: the hash never overflows int32
        h = f" {op} ".join(f"{cell.at(ATOM)}[{c}] * {primes[c]}" for c in range(n))
        key = _local(g, rng.choice(("key", "bucket", "h")), T.I32, f"wp.abs({h}) % {size}", (0, nb - 1))
    uses = rng.sample(("keys", "counts", "cells", "occupied"), rng.choice((1, 2, 3)))
    if "keys" in uses:
        write(g, T.I32, key)
    if "counts" in uses:
        acc = k.array(T.I32, "acc", stem=rng.choice(("counts", "bucket_count", "hist")), ndim=1, length=nb, op="add")
        k.emit(f"wp.atomic_add({acc.name}, {key.code}, 1)")
    if "cells" in uses:
        out = k.array(it, "out", stem=rng.choice(("cells", "cell_out", "coords")))
        k.emit(f"{out.name}[{k.own}] = {cell.code}")
    if "occupied" in uses:  # the first point to claim a bucket counts it: the number of buckets in use
        # longer than the keys reach, so the flags never all end up set (a constant output)
        flags = k.array(T.I32, "acc", stem=rng.choice(("occupied", "claimed", "visited")), ndim=1, length=2 * nb)
        used = k.array(T.I32, "acc", stem=rng.choice(("num_used", "num_occupied", "unique")), ndim=1, length=1)
        if rng.random() < g.p.odds.claim_cas:
            k.emit(f"if wp.atomic_cas({flags.name}, {key.code}, 0, 1) == 0:")
        else:
            k.emit(f"if wp.atomic_exch({flags.name}, {key.code}, 1) == 0:")
        k.emit(f"    wp.atomic_add({used.name}, 0, 1)")
    if uses in (["cells"], ["occupied"]) or rng.random() < g.p.odds.hash_weighted_sum:
        w = g.expr(T.F32, depth(g) - 1, True)
        acc = k.array(
            T.F32, "acc", stem=rng.choice(("bucket_sum", "mass_per_cell", "sums")), ndim=1, length=nb, op="add"
        )
        k.emit(f"wp.atomic_add({acc.name}, {key.code}, {w.code})")
