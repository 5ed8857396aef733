"""Compare a prediction's arrays with its reference's, in the parent: the child never sees expected values.

Arrays are keyed ``TRIAL/KIND/NAME`` (``builder.warp_backend.trial_run``); the ``out`` and ``grad`` kinds are
results, ``pre`` and ``pregrad`` the states before the launches. A prediction passes when it returns the same
keys, shapes and dtypes as the reference and every value is within its tolerance on every trial (two NaNs at
one place agree, as do two equal infinities).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

RESULTS = ("out", "grad")
Tolerance = Callable[[str], tuple[float, float]]  # numpy dtype name -> (atol, rtol)


def kind(key: str) -> str:
    return key.split("/", 2)[1]


def results(arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    return {k: v for k, v in arrays.items() if kind(k) in RESULTS}


def compare(pred: dict[str, np.ndarray], ref: dict[str, np.ndarray], tolerance: Tolerance) -> tuple[bool, str]:
    """(equal within tolerance, what differed: the first mismatched key or the largest errors)."""
    a, b = results(pred), results(ref)
    if a.keys() != b.keys():
        missing, extra = sorted(b.keys() - a.keys()), sorted(a.keys() - b.keys())
        return False, f"arrays differ from the reference's: missing {missing[:3]}, unexpected {extra[:3]}"
    match, max_abs, max_rel, first = True, 0.0, 0.0, ""
    for key in sorted(b):
        x, y = a[key], b[key]
        if x.shape != y.shape or x.dtype != y.dtype:
            return False, f"{key}: {x.dtype}{x.shape} vs the reference's {y.dtype}{y.shape}"
        atol, rtol = tolerance(y.dtype.name)
        x64, y64 = x.astype(np.float64), y.astype(np.float64)
        same = (x64 == y64) | (np.isnan(x64) & np.isnan(y64))
        with np.errstate(invalid="ignore"):
            err = np.where(same, 0.0, np.abs(x64 - y64))
            ok = bool(np.all(same | (err <= atol + rtol * np.abs(y64))))
        if not ok:
            match, first = False, first or key
        err = np.nan_to_num(err, nan=np.inf)
        max_abs = max(max_abs, float(err.max(initial=0.0)))
        rel = err / np.maximum(np.abs(y64), 1e-30)
        max_rel = max(max_rel, float(np.where(err > atol, rel, 0.0).max(initial=0.0)))
    return match, "" if match else f"first at {first}: max_abs_err={max_abs:.3g} max_rel_err={max_rel:.3g}"


def body_independent(ref: dict[str, np.ndarray], backward: bool) -> bool:
    """Whether the reference's results are what an empty function body leaves: on every trial, nothing its pass
    computes changed (a forward pass's arrays, a backward pass's gradients). Such a row cannot tell a right
    body from an empty one."""
    before, after = ("pregrad", "grad") if backward else ("pre", "out")
    for key, value in ref.items():
        if kind(key) != after:
            continue
        start = ref[key.replace(f"/{after}/", f"/{before}/", 1)]
        if not np.array_equal(value, start, equal_nan=value.dtype.kind in "fc"):
            return False
    return True


def finite(ref: dict[str, np.ndarray]) -> bool:
    return all(np.isfinite(v).all() for v in results(ref).values() if v.dtype.kind in "fc")


def loosest(ref: dict[str, np.ndarray], tolerances: dict[str, tuple[float, float]]) -> Tolerance:
    """A tolerance for a kernel whose declared types are not at hand: a float array is as precise as the least
    precise float any of its arrays holds (``execute.tolerance``'s rule), integers exact."""
    floats = {v.dtype.name for v in ref.values() if v.dtype.name in tolerances and v.dtype.kind == "f"}
    widest = max((tolerances[f] for f in floats), default=(0.0, 0.0))

    def tolerance(dtype: str) -> tuple[float, float]:
        own = tolerances.get(dtype, (0.0, 0.0))
        return (max(own[0], widest[0]), max(own[1], widest[1])) if dtype in floats else own

    return tolerance
