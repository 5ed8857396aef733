"""Generation policies: one frozen dataclass per category over the same grammar.

A policy says *what* to generate (which idiom, which types, probability
weights and hard limits); the grammar modules say *how*. Categories differ
only in these numbers.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from builder.grammar import wtypes as T
from builder.grammar.odds import Odds
from builder.grammar.wtypes import WType

TYPE_NAMES: dict[str, WType] = {
    "f32": T.F32,
    "f64": T.F64,
    "i32": T.I32,
    "i64": T.I64,
    "u32": T.U32,
    "vec2": T.VEC[2],
    "vec3": T.VEC[3],
    "vec4": T.VEC[4],
    "mat22": T.MAT[2],
    "mat33": T.MAT[3],
    "mat44": T.MAT[4],
    "quat": T.QUAT,
    "transform": T.TRANSFORM,
}
IDIOMS = (
    "elementwise",
    "particles",
    "stencil",
    "reduction",
    "sparse",
    "pairwise",
    "tile",
    "geometry",
    "hash",
    "indexed",
)


@dataclass(frozen=True)
class Policy:
    name: str
    idiom: str = "elementwise"
    type_names: tuple[str, ...] = ("f32",)
    out_type_names: tuple[str, ...] = ()  # output types (default: the first of type_names)
    dims: tuple[int, ...] = (1,)
    depth: tuple[int, int] = (2, 3)
    outputs: tuple[int, int] = (1, 2)
    short_depth: int = 1  # the deepest expression of a short kernel (Odds.short_kernel; 4.5.0)
    siblings: tuple[int, int] = (2, 10)  # sibling kernels drawn before a program that has some (siblings.py; 4.5.0)
    # leaves: probability an expression is a leaf; hoisting a sub-expression into a named local
    leaf: float = 0.3
    hoist: float = 0.35
    w_local: float = 3.0
    w_read: float = 2.0
    w_param: float = 1.0
    w_lit: float = 1.2
    w_const: float = 0.06  # share of float literals written as a module wp.constant
    w_tid: float = 0.5
    reuse_array: float = 0.55
    # a read of the thread's element goes into a named local first (0.75 before generator 4.1.0: real kernels more
    # often read an array where the value is used, and the realism judge told the bound reads apart)
    load_local: float = 0.3
    half: float = 0.0  # a float32 input stored as float16
    # composite expressions
    w_binop: float = 4.0
    w_math: float = 1.5
    w_minmax: float = 0.8
    w_where: float = 0.5
    w_convert: float = 0.3
    w_reduce: float = 1.5
    w_random: float = 0.0
    w_call: float = 0.8  # a helper call among composite expressions (0.25 before generator 4.2.0)
    w_loop: float = 0.0
    w_branch: float = 0.0
    w_bits: float = 0.0
    suffixed: float = 0.15  # a float32 vector/matrix/quaternion constructor spelled wp.vec3f, wp.mat22f, wp.quatf
    max_loops: int = 1
    static_loops: float = 0.3
    generic: float = 0.3  # a helper takes a typing.Any parameter
    overload: float = 0.35  # a new helper overloads an existing one taking other types
    # kernel structure
    early_return: float = 0.15
    in_place: float = 0.2  # an output is an input array written back
    struct_params: float = 0.0
    random: bool = False
    subscript_annotations: float = 0.85  # wp.array[T] rather than wp.array(dtype=T) (0.9 before generator 4.5.0)
    # @wp.kernel(launch_bounds=256): 0.15 before generator 4.3.0; 29 of the 5,957 kernels the judge reads write it
    decorator_args: float = 0.03
    # @wp.kernel(enable_backward=False) (no cuda-backward row): for kernels writing floats, and writing only ints
    no_backward: float = 0.12  # 0.06 before generator 4.3.0; real projects turn it off in 10-29% of their kernels
    no_backward_int: float = 0.5
    block_reduce: float = 0.0  # a reduction goes through a block-wide tile (wp.tile, tile_sum, tile_atomic_add)
    # tile kernels: shares of tile GEMMs, of per-lane loops reduced through a tile and of 2-D blocks (the rest
    # map rows); tile_step: the chance of each optional step (a broadcast bias, a view, an epilogue...)
    tile_gemm: float = 0.0
    tile_lanes: float = 0.0
    tile_blocks: float = 0.0
    tile_step: float = 0.0
    odds: Odds = field(default_factory=Odds)  # every other optional choice's chance, by name
    _types: tuple = field(default=(), compare=False, repr=False)
    _out: tuple = field(default=(), compare=False, repr=False)

    def __post_init__(self) -> None:
        unknown = [n for n in self.type_names + self.out_type_names if n not in TYPE_NAMES]
        if unknown:
            raise ValueError(f"policy {self.name!r}: unknown types {unknown}; valid: {sorted(TYPE_NAMES)}")
        if self.idiom not in IDIOMS:
            raise ValueError(f"policy {self.name!r}: unknown idiom {self.idiom!r}; valid: {IDIOMS}")
        if not (1 <= self.depth[0] <= self.depth[1] <= 4) or not (0 <= self.outputs[0] <= self.outputs[1] <= 4):
            raise ValueError(f"policy {self.name!r}: bad limits depth={self.depth} outputs={self.outputs}")
        if not 1 <= self.siblings[0] <= self.siblings[1] <= 12 or not 1 <= self.short_depth <= 4:
            raise ValueError(
                f"policy {self.name!r}: bad limits siblings={self.siblings} short_depth={self.short_depth}"
            )
        probabilities = ("leaf", "hoist", "reuse_array", "load_local", "half", "early_return", "in_place", "suffixed")
        tiles = ("tile_gemm", "tile_lanes", "tile_blocks", "tile_step")
        for f in (*probabilities, "struct_params", "decorator_args", "no_backward", "no_backward_int", *tiles):
            if not 0.0 <= getattr(self, f) <= 1.0:
                raise ValueError(f"policy {self.name!r}: {f}={getattr(self, f)!r} is not a probability")
        if self.tile_gemm + self.tile_lanes + self.tile_blocks > 1.0:
            raise ValueError(f"policy {self.name!r}: tile_gemm + tile_lanes + tile_blocks exceed 1")
        object.__setattr__(self, "_types", tuple(TYPE_NAMES[n] for n in self.type_names))
        object.__setattr__(self, "_out", tuple(TYPE_NAMES[n] for n in self.out_type_names or self.type_names[:1]))

    def types(self) -> tuple[WType, ...]:
        return self._types

    def out_types(self) -> tuple[WType, ...]:
        return self._out


_BASE = Policy("elementwise")
# generator 4.3.0's kernels through index arrays; shallow expressions: such kernels index and test more than they
# compute
_INDEXED = replace(
    _BASE, name="indexed", idiom="indexed", type_names=("f32", "vec3"), out_type_names=("vec3", "f32"), depth=(1, 2)
)

POLICIES: dict[str, Policy] = {
    p.name: p
    for p in (
        replace(
            _BASE,
            name="arithmetic",
            type_names=("f32", "i32", "f64"),
            out_type_names=("f32", "f32", "f64"),
            w_convert=0.8,
            w_where=0.8,
            half=0.15,
        ),
        replace(
            _BASE,
            name="math",
            type_names=("f32", "f64"),
            out_type_names=("f32", "f32", "f64"),
            w_math=4.0,
            w_minmax=1.2,
        ),
        replace(
            _BASE,
            name="integer",
            type_names=("i32", "u32", "f32", "i64"),
            out_type_names=("i32", "i32", "u32", "i64"),
            w_bits=2.0,
            w_convert=1.2,
        ),
        replace(
            _BASE,
            name="vector",
            type_names=("vec3", "f32", "vec2", "vec4"),
            out_type_names=("vec3", "vec3", "f32", "vec2", "vec4"),
        ),
        replace(
            _BASE,
            name="matrix",
            type_names=("mat33", "vec3", "f32", "mat22", "vec2"),
            out_type_names=("mat33", "vec3", "f32", "mat22"),
            w_reduce=2.0,
        ),
        replace(
            _BASE,
            name="transform",
            type_names=("vec3", "quat", "transform", "f32", "mat33"),
            out_type_names=("vec3", "vec3", "quat", "transform", "mat33"),
        ),
        replace(
            _BASE,
            name="control_flow",
            type_names=("f32", "vec3", "i32"),
            out_type_names=("f32", "vec3"),
            w_branch=1.5,
            w_where=1.5,
            early_return=0.4,
        ),
        replace(
            _BASE,
            name="loop",
            type_names=("f32", "vec3"),
            out_type_names=("f32", "vec3", "f32"),
            w_loop=2.0,
            static_loops=0.35,
        ),
        replace(
            _BASE,
            name="random",
            type_names=("f32", "vec3", "vec2"),
            out_type_names=("f32", "vec3", "vec2"),
            random=True,
            w_random=2.0,
        ),
        replace(
            _BASE,
            name="struct",
            type_names=("f32", "vec3"),
            out_type_names=("f32", "vec3"),
            struct_params=1.0,
        ),
        replace(
            _BASE,
            name="function_call",
            type_names=("f32", "vec3"),
            out_type_names=("f32", "vec3"),
            w_call=2.5,
            overload=0.6,
            generic=0.4,
        ),
        replace(
            _BASE, name="multi_dim", type_names=("f32", "vec3", "i32"), out_type_names=("f32", "vec3"), dims=(2, 3)
        ),
        replace(
            _BASE,
            name="particles",
            idiom="particles",
            type_names=("vec3", "f32"),
            out_type_names=("vec3",),
            struct_params=0.25,
        ),
        replace(
            _BASE, name="stencil", idiom="stencil", type_names=("f32", "vec2"), out_type_names=("f32",), dims=(1, 2)
        ),
        replace(
            _BASE,
            name="atomic_reduction",
            idiom="reduction",
            type_names=("f32", "vec3", "i32"),
            out_type_names=("f32", "vec3"),
            outputs=(1, 2),
            early_return=0.1,
        ),
        replace(
            _BASE,
            name="sparse",
            idiom="sparse",
            type_names=("f32", "vec3"),
            out_type_names=("f32", "vec3"),
        ),
        replace(
            _BASE,
            name="pairwise",
            idiom="pairwise",
            type_names=("vec3", "f32"),
            out_type_names=("f32", "vec3"),
        ),
        replace(_BASE, name="geometry", idiom="geometry", type_names=("f32", "vec3"), out_type_names=("f32",)),
        replace(_BASE, name="spatial_hash", idiom="hash", type_names=("f32", "vec3"), out_type_names=("f32",)),
        replace(
            _BASE,
            name="block_reduction",
            idiom="reduction",
            type_names=("f32", "vec3"),
            out_type_names=("f32",),
            block_reduce=0.8,
            early_return=0.0,
        ),
        replace(
            _BASE,
            name="tile",
            idiom="tile",
            type_names=("f32",),
            out_type_names=("f32",),
            tile_gemm=0.25,
            tile_lanes=0.2,
            tile_blocks=0.25,
            tile_step=0.4,
        ),
        # generator 4.3.0: data moved through index arrays, one item per thread or a batch of worlds
        _INDEXED,
        replace(_INDEXED, name="indexed_worlds", dims=(2,)),
        replace(_INDEXED, name="indexed_state", type_names=("vec3", "f32", "transform")),
    )
}

CATEGORIES: tuple[str, ...] = tuple(POLICIES)
