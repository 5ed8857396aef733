"""Warp value types the grammar knows, their Python spelling and their literals.

Intervals (``lo``, ``hi``) bound every value the generator creates; for
vectors, matrices, quaternions and transforms they bound each component.
They are what makes programs safe by construction: an operation whose operand
interval could make it undefined is repaired (guarded) instead of emitted.
"""

from __future__ import annotations

from dataclasses import dataclass, field

Interval = tuple[float, float]

FLOAT_CAP = 1.0e3  # any float wider than this is squashed before it is used
INT_CAP = 4096  # ints stay far from int32 overflow even after a product


@dataclass(frozen=True)
class WType:
    kind: str  # scalar | vec | mat | quat | transform | struct | bool
    spelling: str  # how a kernel annotation writes it
    scalar: str = "float32"  # component scalar type
    n: int = 0  # vector length / matrix order
    fields: tuple[tuple[str, WType], ...] = field(default=(), compare=True)

    def __eq__(self, other: object) -> bool:
        # The generator compares types on every leaf it draws; the types are mostly the shared constants
        # below, so identity answers first and a differing kind or spelling answers without building tuples.
        if self is other:
            return True
        if not isinstance(other, WType):
            return NotImplemented
        return (
            self.spelling == other.spelling
            and self.kind == other.kind
            and self.scalar == other.scalar
            and self.n == other.n
            and self.fields == other.fields
        )

    @property
    def is_float(self) -> bool:
        return self.kind == "scalar" and self.scalar in ("float16", "float32", "float64")

    @property
    def is_int(self) -> bool:
        return self.kind == "scalar" and self.scalar in ("int8", "int16", "int32", "int64", "uint8", "uint32")

    @property
    def ctor(self) -> str:
        """The callable that constructs or converts to this type inside a kernel."""
        return {"float32": "wp.float32", "int32": "wp.int32"}.get(self.spelling, self.spelling)

    @property
    def numel(self) -> int:
        return {"vec": self.n, "mat": self.n * self.n, "quat": 4, "transform": 7}.get(self.kind, 1)


F32 = WType("scalar", "float", "float32")
F64 = WType("scalar", "wp.float64", "float64")
I32 = WType("scalar", "int", "int32")
I64 = WType("scalar", "wp.int64", "int64")
U32 = WType("scalar", "wp.uint32", "uint32")
F16 = WType("scalar", "wp.float16", "float16")
I8 = WType("scalar", "wp.int8", "int8")
I16 = WType("scalar", "wp.int16", "int16")
U8 = WType("scalar", "wp.uint8", "uint8")
U64 = WType("scalar", "wp.uint64", "uint64")  # handles of meshes, hash grids and volumes
BOOL = WType("bool", "bool", "bool")
VEC = {n: WType("vec", f"wp.vec{n}", "float32", n) for n in (2, 3, 4)}
MAT = {n: WType("mat", f"wp.mat{n}{n}", "float32", n) for n in (2, 3, 4)}
QUAT = WType("quat", "wp.quat", "float32", 4)
TRANSFORM = WType("transform", "wp.transform", "float32", 7)

FLOATS = (F32, F64)
INTS = (I32, I64, U32)
SCALARS = FLOATS + INTS


# Operator precedence, for writing only the parentheses Python needs.
ATOM, POW, UNARY, MUL, ADD, SHIFT, BAND, BXOR, BOR, CMP, NOT, AND, OR, TERNARY = (
    100,
    15,
    14,
    13,
    12,
    11,
    10,
    9,
    8,
    7,
    6,
    5,
    4,
    3,
)


@dataclass(frozen=True)
class E:
    """A generated expression: its code, its type, a bound on its value, and whether it differs per thread."""

    code: str
    t: WType
    iv: Interval
    varies: bool = False
    prec: int = ATOM  # binding strength of the outermost operator (ATOM for names, calls, subscripts)

    def at(self, prec: int) -> str:
        """The code as an operand of an operator binding with ``prec``."""
        return self.code if self.prec >= prec else f"({self.code})"


def struct_type(name: str, fields: tuple[tuple[str, WType], ...]) -> WType:
    return WType("struct", name, "struct", 0, fields)


def fmt_float(x: float) -> str:
    """Short, exact-looking float literal (``0.5``, ``1.25``, ``3.0``)."""
    text = f"{x:.3g}" if abs(x) < 1e4 else f"{x:.1f}"
    if "e" in text:
        text = repr(float(text))
    if "." not in text and "e" not in text and "inf" not in text:
        text += ".0"
    return text


def lit(t: WType, value: float) -> str:
    """A literal of type ``t`` that Warp will type exactly as ``t``."""
    if t == F32:
        return fmt_float(value)
    if t == I32:
        return str(int(value))
    if t.is_float:
        return f"{t.ctor}({fmt_float(value)})"
    if t.is_int:
        return f"{t.ctor}({int(value)})"
    raise TypeError(f"no scalar literal for {t.spelling!r}")


def iv_add(a: Interval, b: Interval) -> Interval:
    return (a[0] + b[0], a[1] + b[1])


def iv_sub(a: Interval, b: Interval) -> Interval:
    return (a[0] - b[1], a[1] - b[0])


def iv_mul(a: Interval, b: Interval) -> Interval:
    p = (a[0] * b[0], a[0] * b[1], a[1] * b[0], a[1] * b[1])
    return (min(p), max(p))


def iv_abs(a: Interval) -> Interval:
    if a[0] >= 0:
        return a
    if a[1] <= 0:
        return (-a[1], -a[0])
    return (0.0, max(-a[0], a[1]))


def mag(a: Interval) -> float:
    return max(abs(a[0]), abs(a[1]))


def iv_overlap(a: Interval, b: Interval) -> float:
    """Length of the intersection (0 when disjoint)."""
    return max(0.0, min(a[1], b[1]) - max(a[0], b[0]))


def iv_union(a: Interval, b: Interval) -> Interval:
    return (min(a[0], b[0]), max(a[1], b[1]))


def sym(b: float) -> Interval:
    return (-b, b)


def sum_code(a: str, op: str, b: E) -> str:
    """``a op b`` for ``op`` in + and -, without writing ``a - -x`` or ``a + -x``."""
    if b.prec == UNARY and b.code.startswith("-"):
        return f"{a} {'+' if op == '-' else '-'} {b.code[1:]}"
    return f"{a} {op} {b.at(ADD + 1) if op == '-' else b.at(ADD)}"


VEC2I = WType("vec", "wp.vec2i", "int32", 2)
VEC3I = WType("vec", "wp.vec3i", "int32", 3)
VEC3D = WType("vec", "wp.vec3d", "float64", 3)  # a sum over many threads, kept in double precision

# The scene the executor builds for geometry queries (a mesh, a hash grid, a volume), described here so the
# generator knows its extent without importing Warp: a MESH_N x MESH_N grid of vertices over [-1, 1]^2 with
# small random heights, two triangles per cell; a VOLUME_N^3 grid of VOLUME_VOXEL-sized voxels from -2.
MESH_N = 4
MESH_FACES = 2 * (MESH_N - 1) ** 2
VOLUME_N = 8
VOLUME_VOXEL = 0.5
