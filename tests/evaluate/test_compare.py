"""The parent's comparison: every trial, every result array, within tolerance; rows an empty body would pass."""

from __future__ import annotations

import numpy as np

from builder.evaluate import compare

TOL = {"float32": (1e-3, 1e-3), "float64": (1e-9, 1e-9), "int32": (0, 0)}


def _tol(dtype: str) -> tuple[float, float]:
    return TOL.get(dtype, (0, 0))


def _run(trial2: float = 1.0) -> dict[str, np.ndarray]:
    return {
        "0/pre/x": np.zeros(3, np.float32),
        "0/out/x": np.array([1.0, 2.0, np.nan], np.float32),
        "1/pre/x": np.zeros(3, np.float32),
        "1/out/x": np.array([3.0, 4.0, trial2], np.float32),
        "1/out/n": np.array([1, 2], np.int32),
    }


def test_equal_runs_match_nan_for_nan():
    assert compare.compare(_run(), _run(), _tol) == (True, "")


def test_a_difference_in_a_later_trial_fails_and_is_named():
    ok, detail = compare.compare(_run(1.5), _run(), _tol)
    assert not ok and detail.startswith("first at 1/out/x: max_abs_err=0.5")


def test_within_tolerance_passes_and_integers_are_exact():
    near = _run(1.0005)
    assert compare.compare(near, _run(), _tol)[0]
    off = _run() | {"1/out/n": np.array([1, 3], np.int32)}
    assert not compare.compare(off, _run(), _tol)[0]


def test_missing_or_reshaped_arrays_fail():
    ref = _run()
    assert "missing ['1/out/n']" in compare.compare({k: v for k, v in ref.items() if k != "1/out/n"}, ref, _tol)[1]
    reshaped = ref | {"0/out/x": ref["0/out/x"].astype(np.float64)}
    assert "0/out/x: float64(3,) vs the reference's float32(3,)" in compare.compare(reshaped, ref, _tol)[1]


def test_pre_states_are_not_compared():
    pred = _run() | {"0/pre/x": np.ones(3, np.float32)}
    assert compare.compare(pred, _run(), _tol)[0]


def test_body_independence_forward_and_backward():
    ref = _run()
    assert not compare.body_independent(ref, backward=False)
    untouched = {k: v for k, v in ref.items() if k.split("/")[1] == "pre"}
    untouched |= {k.replace("/pre/", "/out/"): v for k, v in untouched.items()}
    assert compare.body_independent(untouched, backward=False)
    grads = {"0/pregrad/x": np.ones(2, np.float32), "0/grad/x": np.ones(2, np.float32)}
    assert compare.body_independent(ref | grads, backward=True)  # the gradients never moved from their seeds
    moved = grads | {"0/grad/x": np.array([1.0, 0.5], np.float32)}
    assert not compare.body_independent(ref | moved, backward=True)
    assert compare.body_independent({}, backward=True)  # nothing differentiable: any body passes


def test_loosest_tolerance_widens_float64_next_to_float32():
    ref = {"0/out/a": np.zeros(2, np.float64), "0/out/b": np.zeros(2, np.float32), "0/out/n": np.zeros(2, np.int32)}
    tol = compare.loosest(ref, TOL)
    assert tol("float64") == (1e-3, 1e-3) and tol("int32") == (0, 0)
    assert compare.loosest({"0/out/a": np.zeros(2, np.float64)}, TOL)("float64") == (1e-9, 1e-9)
    assert not compare.finite({"0/out/a": np.array([np.inf])}) and compare.finite({"0/pre/a": np.array([np.nan])})
