"""Generation policies: one frozen dataclass per category over the same grammar.

A policy says *what* to generate (probability tables and hard limits); the
grammar modules say *how*. Categories differ only in these numbers.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from builder.grammar import wtypes as T
from builder.grammar.wtypes import WType

BASE_EXPR = {
    "leaf": 0.6,
    "binop": 3.0,
    "math": 1.5,
    "math2": 1.0,
    "convert": 0.4,
    "select": 0.3,
    "linalg": 0.0,
    "random": 0.0,
    "call": 0.0,
    "bits": 0.2,
}
BASE_STMT = {"assign": 4.0, "update": 1.5, "if": 0.0, "for": 0.0, "while": 0.0, "atomic": 0.0, "struct_local": 0.0}


@dataclass(frozen=True)
class Policy:
    name: str
    type_names: tuple[str, ...] = ("f32",)
    dims: tuple[int, ...] = (1,)
    stmts: tuple[int, int] = (5, 10)
    depth: int = 3
    expr: tuple[tuple[str, float], ...] = ()
    stmt: tuple[tuple[str, float], ...] = ()
    funcs: tuple[int, int] = (0, 0)
    structs: bool = False
    random: bool = False
    outputs: tuple[int, int] = (1, 2)
    accumulators: tuple[int, int] = (0, 0)
    max_nesting: int = 1
    # Soft cap on kernel body lines: past it no new branch or loop opens and no new top-level
    # statement starts. Compile time grows with emitted C++ (adjoints included), so a few
    # 100-line kernels would cost more than hundreds of typical ones.
    max_lines: int = 40
    _expr: dict = field(default_factory=dict, compare=False, repr=False)
    _types: tuple = field(default=(), compare=False, repr=False)  # asked on most expressions drawn

    def __post_init__(self) -> None:
        unknown = [n for n in self.type_names if n not in TYPE_NAMES]
        if unknown:
            raise ValueError(f"policy {self.name!r}: unknown types {unknown}; valid: {sorted(TYPE_NAMES)}")
        if not (0 < self.stmts[0] <= self.stmts[1]) or self.depth < 1 or self.max_lines < 10:
            raise ValueError(
                f"policy {self.name!r}: bad limits stmts={self.stmts} depth={self.depth} max_lines={self.max_lines}"
            )
        object.__setattr__(self, "_types", tuple(TYPE_NAMES[n] for n in self.type_names))
        self._expr.update(BASE_EXPR)
        self._expr.update(dict(self.expr))
        self._expr.update({f"stmt:{k}": v for k, v in BASE_STMT.items()})
        self._expr.update({f"stmt:{k}": v for k, v in self.stmt})

    def weight(self, key: str) -> float:
        return self._expr[key]

    def stmt_weight(self, key: str) -> float:
        return self._expr[f"stmt:{key}"]

    def types(self) -> tuple[WType, ...]:
        return self._types

    def scalar_types(self) -> tuple[WType, ...]:
        out = tuple(t for t in self.types() if t.kind == "scalar")
        return out or (T.F32,)


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

_LOOPS = (("for", 2.0), ("if", 1.0))

POLICIES: dict[str, Policy] = {
    p.name: p
    for p in (
        Policy(
            "arithmetic",
            ("f32", "i32", "f64"),
            stmts=(6, 12),
            depth=3,
            expr=(("math", 0.3), ("math2", 0.4), ("binop", 4.0), ("convert", 0.8)),
        ),
        Policy("math", ("f32", "f64"), stmts=(6, 12), depth=3, expr=(("math", 4.0), ("math2", 2.5))),
        Policy(
            "integer",
            ("i32", "i64", "u32", "f32"),
            stmts=(6, 12),
            depth=3,
            expr=(("bits", 2.0), ("convert", 1.0)),
            outputs=(1, 3),
        ),
        Policy("vector", ("f32", "vec2", "vec3", "vec4"), stmts=(6, 12), depth=3, expr=(("linalg", 2.5),)),
        Policy(
            "matrix",
            ("f32", "vec2", "vec3", "vec4", "mat22", "mat33", "mat44"),
            stmts=(6, 11),
            depth=3,
            expr=(("linalg", 3.0),),
        ),
        Policy(
            "quaternion_transform",
            ("f32", "vec3", "quat", "transform", "mat33", "mat44"),
            stmts=(6, 11),
            depth=3,
            expr=(("linalg", 3.0),),
        ),
        Policy(
            "control_flow",
            ("f32", "i32", "vec3"),
            stmts=(5, 9),
            depth=2,
            expr=(("select", 1.5), ("linalg", 0.5)),
            stmt=(("if", 3.0), ("update", 2.0)),
            max_nesting=2,
            max_lines=45,
        ),
        Policy(
            "loop",
            ("f32", "i32", "vec3"),
            stmts=(5, 9),
            depth=2,
            expr=(("linalg", 0.5),),
            stmt=(("for", 2.5), ("while", 1.0), ("if", 0.8), ("update", 1.5)),
            max_nesting=2,
            max_lines=50,
        ),
        Policy(
            "nested_loop",
            ("f32", "i32", "vec2"),
            stmts=(4, 8),
            depth=2,
            expr=(("linalg", 0.5),),
            stmt=(("for", 3.0), ("while", 0.5), ("if", 0.8), ("update", 1.5)),
            max_nesting=3,
            max_lines=50,
        ),
        Policy(
            "atomic_reduction",
            ("f32", "i32", "vec3"),
            stmts=(4, 9),
            depth=3,
            expr=(("linalg", 0.5),),
            stmt=(("atomic", 2.5), ("if", 0.6), ("for", 0.5)),
            outputs=(0, 1),
            accumulators=(1, 3),
        ),
        Policy(
            "random",
            ("f32", "vec2", "vec3", "i32"),
            stmts=(5, 10),
            depth=3,
            expr=(("random", 2.0), ("linalg", 0.6)),
            random=True,
            stmt=(("for", 0.6), ("if", 0.6)),
        ),
        Policy(
            "struct",
            ("f32", "vec3", "i32"),
            stmts=(5, 10),
            depth=3,
            expr=(("linalg", 0.8),),
            structs=True,
            stmt=(("struct_local", 1.0), ("if", 0.5)),
        ),
        Policy(
            "function_call",
            ("f32", "vec3", "f64"),
            stmts=(4, 9),
            depth=3,
            expr=(("call", 3.0), ("linalg", 0.8)),
            funcs=(1, 3),
        ),
        Policy(
            "multi_dim",
            ("f32", "vec3", "i32"),
            dims=(2, 3),
            stmts=(5, 10),
            depth=3,
            expr=(("linalg", 0.8),),
            stmt=(("if", 0.6), ("for", 0.5)),
            outputs=(1, 3),
        ),
        Policy(
            "combined",
            ("f32", "f64", "i32", "u32", "vec3", "vec4", "mat33", "quat", "transform"),
            dims=(1, 2, 3),
            stmts=(8, 14),
            depth=3,
            expr=(("linalg", 1.5), ("call", 1.0), ("random", 0.6), ("math", 2.0), ("math2", 1.5), ("bits", 0.4)),
            stmt=(("if", 1.2), ("for", 1.2), ("while", 0.4), ("atomic", 0.8), ("struct_local", 0.4), ("update", 1.5)),
            funcs=(0, 2),
            structs=True,
            random=True,
            outputs=(1, 3),
            accumulators=(0, 1),
            max_nesting=2,
            max_lines=45,
        ),
    )
}

CATEGORIES: tuple[str, ...] = tuple(POLICIES)
