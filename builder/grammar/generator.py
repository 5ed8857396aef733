"""Assemble one program: launch shape, idiom body, arguments, helpers and module constants.

``generate(rng, category)`` is a pure function of its RNG stream, so a row is
regenerated exactly from (seed, split, index).
"""

from __future__ import annotations

import random

from builder.grammar import geometry, idioms, idioms_loops, indexed, siblings, tiles
from builder.grammar import names as N
from builder.grammar import wtypes as T
from builder.grammar.expr import Gen
from builder.grammar.kernel import KernelCtx
from builder.grammar.policy import POLICIES, Policy
from builder.grammar.program import Param, Program
from builder.grammar.scope import ArrayArg

BUILDERS = {
    "elementwise": idioms.elementwise,
    "particles": idioms.particles,
    "stencil": idioms.stencil,
    "reduction": idioms_loops.reduction,
    "sparse": idioms_loops.sparse,
    "pairwise": idioms_loops.pairwise,
    "tile": tiles.tile_kernel,
    "geometry": geometry.geometry,
    "hash": geometry.spatial_hash,
    "indexed": indexed.indexed,
}
VERBS = {
    "particles": ("integrate", "advance", "step", "update"),
    "stencil": ("diffuse", "smooth", "relax", "blur", "advect"),
    "reduction": ("reduce", "accumulate", "sum", "bin", "scatter"),
    "sparse": ("spmv", "gather", "csr_apply", "graph_smooth"),
    "pairwise": ("compute_density", "spring_forces", "neighbor_sum", "collide"),
    "geometry": ("query", "closest_point", "sample", "project", "signed_distance"),
    "hash": ("hash", "bin", "count", "bucket"),
    "indexed": ("gather", "copy", "apply", "update", "eval", "transform", "sync"),
}


def generate(rng: random.Random, category: str) -> Program:
    """The program ``rng`` draws for ``category``, some written after sibling kernels (``siblings``)."""
    return in_module(_program(rng, category), rng)


def in_module(program: Program, rng: random.Random) -> Program:
    """``program`` (just drawn from ``rng``) in its module: after the sibling kernels ``rng``'s state gives it."""
    return siblings.with_siblings(program, rng, lambda side: _program(side, program.category))


def _program(rng: random.Random, category: str) -> Program:
    p = POLICIES[category]
    ndim = rng.choice(p.dims)
    k = KernelCtx(rng, p, ndim, _shape(rng, ndim, p))
    if p.random:
        k.rand_state = k.fresh(rng.choice(("state", "rng", "rstate")))
    if rng.random() < p.struct_params:
        sname = k.fresh(rng.choice(("SimParams", "Params", "Config", "Material", "Settings")))
        k.mod.structs[sname] = {}
        k.mod.struct_names.append(sname)
        k.param_struct = (sname, k.fresh(rng.choice(("params", "cfg", "config", "mat"))))
    g = Gen(k)
    BUILDERS[p.idiom](g)
    _finish_uniforms(k)
    name = k.fresh(k.namer.kernel(_kernel_name(rng, p)))
    decorator, backward = _decorator(rng, p, k)
    return k.program(category, name, decorator, backward)


def _shape(rng: random.Random, ndim: int, p: Policy) -> tuple[int, ...]:
    if p.idiom == "tile":
        return (rng.choice((2, 4, 8)),)
    if ndim == 1:
        return (rng.choice((32, 48, 64, 96, 128)),)
    if ndim == 2:
        return (rng.choice((8, 12, 16)), rng.choice((8, 16, 24)))
    return (rng.choice((4, 6, 8)), rng.choice((4, 8)), rng.choice((4, 6)))


def _finish_uniforms(k: KernelCtx) -> None:
    """The random state and the parameter struct exist only if something read them."""
    if k.rand_state and any(k.rand_state + ")" in line or k.rand_state + "," in line for line in k.body + k.loads):
        seed = Param(k.fresh("seed"), T.I32, (0, 10000))
        k.args.append(seed)
        lin = k.tid[0] if k.ndim == 1 else f"{k.tid[0]} * {k.shape[1]} + {k.tid[1]}" if k.ndim == 2 else None
        if lin is None:
            lin = f"({k.tid[0]} * {k.shape[1]} + {k.tid[1]}) * {k.shape[2]} + {k.tid[2]}"
        k.loads.insert(0, f"    {k.rand_state} = wp.rand_init({seed.name}, {lin})")
    if k.param_struct is not None:
        sname, arg = k.param_struct
        if k.mod.structs[sname]:
            k.args.append(Param(arg, T.struct_type(sname, ()), (0, 0)))
        else:
            del k.mod.structs[sname]
            k.mod.struct_names.remove(sname)


def _kernel_name(rng: random.Random, p: Policy) -> str:
    if p.idiom in VERBS:
        return f"{rng.choice(VERBS[p.idiom])}_{rng.choice(N.NOUNS)}"
    return N.kernel_name(rng)


def _decorator(rng: random.Random, p: Policy, k: KernelCtx) -> tuple[str, bool]:
    """The kernel's decorator and whether Warp generates its adjoint.

    Warp code turns the adjoint off where no gradient is wanted: above all kernels that write only integers
    (counts, indices, masks), and some float kernels that only prepare or post-process data.
    """
    writes_float = any(
        a.role in ("out", "inout", "acc") and a.dtype.scalar.startswith("float")
        for a in k.args
        if isinstance(a, ArrayArg)
    )
    if not k.block_dim and rng.random() < (p.no_backward if writes_float else p.no_backward_int):
        return "@wp.kernel(enable_backward=False)", False
    if k.block_dim or rng.random() >= p.decorator_args:
        return "@wp.kernel", True
    return "@wp.kernel(launch_bounds=256)", True


def alone(rng: random.Random, category: str) -> Program:
    """The program ``rng`` draws for ``category``, alone: ``grammar.sample`` keys a candidate's split on it, and
    draws its siblings (``in_module``) only for the candidate that is kept."""
    if category not in POLICIES:
        raise KeyError(f"unknown category {category!r}")
    return _program(rng, category)
