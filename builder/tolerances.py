"""How close two devices' (or two compilers') results must be, per output component scalar type: one table for the
GPU-vs-CPU comparison, the evaluator, the standalone programs' check and the dataset card."""

from __future__ import annotations

# (atol, rtol): |a - b| <= atol + rtol * |b|
TOLERANCES = {
    "float16": (1e-2, 1e-2),
    "float32": (1e-3, 1e-3),
    "float64": (1e-9, 1e-9),
    **{k: (0, 0) for k in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")},
}
FLOAT_SCALARS = ("float16", "float32", "float64")
