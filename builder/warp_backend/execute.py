"""Run a compiled kernel (and its adjoint) on one device with inputs drawn from the row's seed.

The same inputs go to any device, so ``run`` on the CPU and on a CUDA device can
be compared value by value (``compare``). Input values stay inside the ranges
the generator assumed, which is what keeps every operation defined.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np
import warp as wp

from builder.grammar import wtypes as T
from builder.grammar.program import Param, Program
from builder.grammar.scope import ArrayArg
from builder.grammar.wtypes import WType
from builder.tolerances import FLOAT_SCALARS, TOLERANCES

WARP_DTYPES = {
    "float16": wp.float16,
    "float32": wp.float32,
    "float64": wp.float64,
    "int8": wp.int8,
    "int16": wp.int16,
    "int32": wp.int32,
    "int64": wp.int64,
    "uint8": wp.uint8,
    "uint32": wp.uint32,
    "uint64": wp.uint64,
}


@dataclass
class Run:
    outputs: dict[str, np.ndarray]
    grads: dict[str, np.ndarray]
    inits: dict[str, float]


def warp_dtype(t: WType, ns: dict):
    if t.kind == "scalar":
        return WARP_DTYPES[t.scalar]
    if t.kind == "struct":
        return ns[t.spelling]
    return getattr(wp, t.spelling.removeprefix("wp."))


def _unit_quats(rng: np.random.Generator, shape) -> np.ndarray:
    q = rng.normal(size=(*shape, 4))
    return q / np.linalg.norm(q, axis=-1, keepdims=True)


def _offsets(rng: np.random.Generator, shape, total: int) -> np.ndarray:
    """CSR row offsets: non-decreasing, from 0 to ``total`` (the length of the arrays they index)."""
    inner = np.sort(rng.integers(0, total + 1, size=shape[0] - 2))
    return np.concatenate([[0], inner, [total]]).astype(np.int32)


def _values(rng: np.random.Generator, t: WType, iv, shape, fill: str = "") -> np.ndarray:
    if fill == "offsets":
        return _offsets(rng, shape, int(iv[1]))
    if fill == "permutation":  # distinct indices (raises if the array is longer than the range it names)
        lo, hi = int(iv[0]), int(iv[1])
        return rng.choice(np.arange(lo, hi + 1), size=shape, replace=False).astype(np.dtype(t.scalar))
    if t.is_int:
        return rng.integers(int(iv[0]), int(iv[1]) + 1, size=shape).astype(np.dtype(t.scalar))
    if t.kind == "quat":
        return _unit_quats(rng, shape).astype(np.float32)
    if t.kind == "transform":
        p = rng.uniform(iv[0], iv[1], size=(*shape, 3))
        return np.concatenate([p, _unit_quats(rng, shape)], axis=-1).astype(np.float32)
    comp = {"vec": (t.n,), "mat": (t.n, t.n)}.get(t.kind, ())
    return rng.uniform(iv[0], iv[1], size=(*shape, *comp)).astype(np.dtype(t.scalar))


def _struct(rng: np.random.Generator, program: Program, t: WType, ns: dict):
    inst = ns[t.spelling]()
    for fname, (ft, fiv) in program.structs[t.spelling].items():
        v = _values(rng, ft, fiv, ())
        setattr(inst, fname, warp_dtype(ft, ns)(*v) if ft.kind == "vec" else v.item())
    return inst


def _grad_capable(t: WType) -> bool:
    return t.kind not in ("struct", "bool") and t.scalar in ("float16", "float32", "float64")


def _mesh(rng: np.random.Generator, device: str) -> wp.Mesh:
    """A height field over [-1, 1]^2: T.MESH_N^2 vertices, two triangles per cell (T.MESH_FACES)."""
    n = T.MESH_N
    xy = np.stack(np.meshgrid(np.linspace(-1, 1, n), np.linspace(-1, 1, n), indexing="ij"), -1).reshape(-1, 2)
    verts = np.concatenate([xy, rng.uniform(-0.2, 0.2, (n * n, 1))], 1).astype(np.float32)
    tris = []
    for a in range(n - 1):
        for b in range(n - 1):
            v0 = a * n + b
            tris += [v0, v0 + 1, v0 + n, v0 + 1, v0 + n + 1, v0 + n]
    return wp.Mesh(
        points=wp.array(verts, dtype=wp.vec3, device=device),
        indices=wp.array(np.array(tris, dtype=np.int32), dtype=int, device=device),
    )


def _handle(kind: str, rng: np.random.Generator, arrays: dict, device: str):
    """The object behind a uint64 argument; the caller keeps it alive while kernels use its id."""
    if kind == "mesh":
        return _mesh(rng, device)
    if kind == "volume":
        n = T.VOLUME_N
        values = rng.uniform(-1.0, 1.0, (n, n, n)).astype(np.float32)
        return wp.Volume.load_from_numpy(
            values, min_world=(-2.0, -2.0, -2.0), voxel_size=T.VOLUME_VOXEL, bg_value=0.0, device=device
        )
    points = arrays[kind.removeprefix("hash_grid:")]  # a grid over the points array the kernel also reads
    grid = wp.HashGrid(8, 8, 8, device=device)
    grid.build(points, 0.5)
    return grid


def make_args(program: Program, ns: dict, rng: np.random.Generator, device: str):
    args, outs, inits, grad_inputs = [], {}, {}, {}
    handles = []
    for a in program.args:
        shape = a.shape if isinstance(a, ArrayArg) and a.shape else program.launch_shape
        if isinstance(a, Param):
            if a.handle:
                handles.append((len(args), a.handle))
                args.append(None)
            elif a.t.kind == "struct":
                args.append(_struct(rng, program, a.t, ns))
            else:
                v = _values(rng, a.t, a.iv, ())
                if a.t.kind != "scalar":
                    args.append(warp_dtype(a.t, ns)(*v.ravel().tolist()))
                else:
                    args.append(warp_dtype(a.t, ns)(v.item()) if a.t.is_float and a.t != T.F32 else v.item())
            continue
        dtype, grad = warp_dtype(a.dtype, ns), _grad_capable(a.dtype)
        if a.role in ("in", "index", "inout"):
            if a.dtype.kind == "struct":
                arr = wp.array(
                    [_struct(rng, program, a.dtype, ns) for _ in range(int(np.prod(shape)))], dtype=dtype, device=device
                ).reshape(shape)
            else:
                values = _values(rng, a.dtype, a.iv, shape, a.fill)
                arr = wp.array(values, dtype=dtype, device=device, requires_grad=grad)
                if grad:
                    grad_inputs[a.name] = arr
                if a.role == "inout":  # written in place: an output that starts from its input values
                    outs[a.name], inits[a.name] = arr, values.copy()
        elif a.role == "out":
            arr = wp.zeros(shape, dtype=dtype, device=device, requires_grad=grad)
            outs[a.name], inits[a.name] = arr, 0.0
        else:
            init = (int(a.init) if a.dtype.is_int else a.init) if a.dtype.kind == "scalar" else None
            arr = wp.full(
                a.length, dtype(init) if init is not None else dtype(), dtype=dtype, device=device, requires_grad=grad
            )
            outs[a.name], inits[a.name] = arr, a.init
        args.append(arr)
    arrays = {a.name: arr for a, arr in zip(program.args, args) if isinstance(a, ArrayArg)}
    keep = []
    for n, kind in handles:
        keep.append(_handle(kind, rng, arrays, device))
        args[n] = keep[-1].id
    return args, outs, inits, grad_inputs, keep


def run(program: Program, kernel, ns: dict, rng: np.random.Generator, device: str, backward: bool) -> Run:
    """Launch forward (and, if asked, backward with unit output adjoints); return host copies."""
    args, outs, inits, grad_inputs, keep = make_args(program, ns, rng, device)  # keep: meshes, grids, volumes
    tape = wp.Tape()
    with tape:
        if program.block_dim:
            wp.launch_tiled(kernel, dim=program.launch_shape, inputs=args, block_dim=program.block_dim, device=device)
        else:
            wp.launch(kernel, dim=program.launch_shape, inputs=args, device=device)
    outputs = {k: v.numpy().copy() for k, v in outs.items()}
    grads = {}
    if backward:
        seeds = {v: wp.ones_like(v) for v in outs.values() if v.requires_grad}
        if seeds:
            tape.backward(grads=seeds)
            grads = {k: v.grad.numpy().copy() for k, v in grad_inputs.items()}
    tape.reset()
    del keep  # the scene objects outlive every launch that used their ids
    return Run(outputs, grads, inits)


def _rounded(x: np.ndarray) -> np.ndarray:
    """Five significant digits, so the checksum ignores last-bit differences between libms."""
    x = np.asarray(x, dtype=np.float64).ravel()
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = 10.0 ** (4 - np.floor(np.log10(np.abs(np.where(x == 0, 1.0, x)))))
        out = np.round(x * scale) / scale
    return np.where(np.isfinite(out), out, 0.0) + 0.0  # + 0.0 folds -0.0 into 0.0


def checksum(arrays: dict[str, np.ndarray]) -> str:
    h = hashlib.sha256()
    for name in sorted(arrays):
        h.update(name.encode())
        h.update(_rounded(arrays[name]).tobytes())
    return h.hexdigest()[:16]


def assess(r: Run) -> tuple[bool, bool, bool]:
    """(outputs finite, outputs non-degenerate, gradients finite)."""
    finite = all(np.isfinite(np.asarray(v, dtype=np.float64)).all() for v in r.outputs.values())
    nondeg = True
    for name, v in r.outputs.items():
        flat = np.asarray(v, dtype=np.float64).reshape(len(v), -1) if v.ndim else v.reshape(1, 1)
        init = r.inits[name]
        changed = bool(
            (flat != (np.asarray(init, dtype=np.float64).reshape(flat.shape) if np.ndim(init) else init)).any()
        )
        constant = flat.shape[0] > 1 and bool((flat == flat[0]).all())
        nondeg &= changed and not constant
    grads_ok = all(np.isfinite(np.asarray(g, dtype=np.float64)).all() for g in r.grads.values())
    return finite, nondeg, grads_ok


def float_scalars(t: WType) -> set[str]:
    own = {t.scalar} if t.scalar in FLOAT_SCALARS and t.kind != "struct" else set()
    return own.union(*(float_scalars(f) for _, f in t.fields))


def tolerance(scalar: str, program: Program) -> tuple[float, float]:
    """(atol, rtol) for an output of component type ``scalar``.

    A float output is only as precise as the least precise float the program computes with: a float64 array
    written from float32 inputs carries float32 rounding (devices differ there in the last bits: FMA
    contraction, division and transcendental approximations), so it gets the float32 tolerance.
    """
    atol, rtol = TOLERANCES.get(scalar, TOLERANCES["float32"])
    if scalar not in FLOAT_SCALARS:
        return atol, rtol
    declared = [a.dtype if isinstance(a, ArrayArg) else a.t for a in program.args]
    declared += [t for fields in program.structs.values() for t, _ in fields.values()]  # struct params' fields
    for t in declared:
        for s in float_scalars(t):
            atol, rtol = max(atol, TOLERANCES[s][0]), max(rtol, TOLERANCES[s][1])
    return atol, rtol


def compare(a: Run, b: Run, program: Program) -> tuple[bool, float, float]:
    """Match two runs (e.g. GPU vs CPU) with a tolerance per component scalar type (see ``tolerance``)."""
    match, max_abs, max_rel = True, 0.0, 0.0
    dtypes = {x.name: x.dtype.scalar for x in program.arrays()}
    for kind in ("outputs", "grads"):
        for name, x in getattr(a, kind).items():
            y = getattr(b, kind)[name]
            x64, y64 = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
            err = np.abs(x64 - y64)
            rel = err / np.maximum(np.abs(y64), 1e-30)
            atol, rtol = tolerance(dtypes.get(name, "float32"), program)
            ok = bool(np.all(err <= atol + rtol * np.abs(y64)))
            match &= ok
            max_abs = max(max_abs, float(err.max(initial=0.0)))
            max_rel = max(max_rel, float(np.where(err > atol, rel, 0.0).max(initial=0.0)))
    return match, max_abs, max_rel
