"""Inputs for a shipped kernel, built from its argument types alone (its real inputs are unknown).

Every array argument gets the trial's size in each dimension (the launch's size). Float values, in arrays and
scalars, are uniform in [0.1, 1]: positive, so square roots, logarithms and divisions by a stored magnitude stay
defined (masses, second moments, lengths), and below one, so ``1 - beta ** t`` of a decay rate does too.
Integer values in arrays are in [0, size - 1], so an integer read from one array is a valid index into any other;
integer scalars in [1, size - 1]; quaternions are unit length. Every float array receives an incoming gradient
of one (which arrays a shipped kernel writes is not recorded) and every array's contents are compared. What
cannot be built from a type alone (object ids such as a mesh's ``uint64``, indexed or fabric arrays, tiles)
raises ``NotEvaluable``.
"""

from __future__ import annotations

import types

import numpy as np
import warp as wp
from warp._src import types as wt

from builder.errors import NotEvaluable
from builder.warp_backend.trial_run import Prepared


def _scalar_name(t) -> str:
    return wt.type_scalar_type(t).__name__


def _components(rng: np.random.Generator, t, count: tuple[int, ...], size: int) -> np.ndarray:
    """Values of a scalar, vector, matrix, quaternion or transform type, shaped ``count + t's own shape``."""
    scalar = wt.type_scalar_type(t)
    np_dtype = wt.warp_type_to_np_dtype[scalar]
    own = tuple(getattr(t, "_shape_", ()))
    if scalar is wp.bool:
        return rng.integers(0, 2, size=(*count, *own)).astype(np.bool_)
    if wt.type_is_int(scalar):
        return rng.integers(0, size, size=(*count, *own)).astype(np_dtype)
    values = rng.uniform(0.1, 1.0, size=(*count, *own))
    if wt.type_is_quaternion(t):
        values /= np.linalg.norm(values, axis=-1, keepdims=True)
    elif wt.type_is_transformation(t):
        values[..., 3:] /= np.linalg.norm(values[..., 3:], axis=-1, keepdims=True)
    return values.astype(np_dtype)


def _struct(rng: np.random.Generator, t, size: int, device: str, arrays: dict, path: str):
    inst = t()
    for name, var in t.vars.items():
        setattr(inst, name, _value(rng, var.type, size, device, arrays, f"{path}.{name}"))
    return inst


def _array(rng: np.random.Generator, t, size: int, device: str):
    if getattr(t, "_concrete_cls", type(t)) is not wt.array:  # annotations stand for their array class
        raise NotEvaluable(f"argument type {wt.type_repr(t)} (only plain arrays are built)")
    if t.dtype is wp.uint64:
        raise NotEvaluable(f"argument type {wt.type_repr(t)} (object ids)")
    shape = (size,) * t.ndim
    if wt.type_is_struct(t.dtype):
        items = [_struct(rng, t.dtype, size, device, {}, "") for _ in range(int(np.prod(shape)))]
        return wp.array(items, dtype=t.dtype, device=device).reshape(shape)
    grad = wt.type_is_float(wt.type_scalar_type(t.dtype))
    return wp.array(_components(rng, t.dtype, shape, size), dtype=t.dtype, device=device, requires_grad=grad)


def _value(rng: np.random.Generator, t, size: int, device: str, arrays: dict, path: str):
    """An argument (or struct field) of type ``t``; arrays are also recorded in ``arrays`` under ``path``."""
    if wt.is_array(t):
        arr = _array(rng, t, size, device)
        arrays[path] = arr
        return arr
    if wt.type_is_struct(t):
        return _struct(rng, t, size, device, arrays, path)
    if t is wp.uint64 or not (wt.type_is_value(t) or wt.type_is_composite(t)):
        raise NotEvaluable(f"argument type {wt.type_repr(t)} (an object id or a type built from data)")
    scalar = wt.type_scalar_type(t)
    if t is wp.bool:
        return bool(rng.integers(0, 2))
    if wt.type_is_int(t):
        return t(int(rng.integers(1, max(2, size))))
    if wt.type_is_float(t):
        return t(float(rng.uniform(0.1, 1.0)))
    if wt.type_is_int(scalar) or wt.type_is_float(scalar):
        return t(*_components(rng, t, (), size).ravel().tolist())
    raise NotEvaluable(f"argument type {wt.type_repr(t)}")


def prepare(kernel, device: str):
    """A ``trial_run`` preparer for a shipped kernel: a trial's seed and launch shape give its arguments."""

    def make(trial) -> Prepared:
        rng = np.random.default_rng(trial.seed)
        size = trial.launch[0]
        arrays: dict[str, wp.array] = {}
        args = [_value(rng, a.type, size, device, arrays, a.label) for a in kernel.adj.args]
        grads = {name: arr for name, arr in arrays.items() if arr.requires_grad}
        return Prepared(args, arrays, grads, list(grads.values()), tuple(trial.launch))

    return make


def check(kernel) -> None:
    """Raise ``NotEvaluable`` now if any argument cannot be built (before anything is compiled)."""
    prepare(kernel, "cpu")(types.SimpleNamespace(seed=0, launch=(1,)))
