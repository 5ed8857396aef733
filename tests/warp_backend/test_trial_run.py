"""Trials on the CPU: every array before and after each launch, gradients for backward passes; inputs of a shipped
kernel built from its argument types."""

from __future__ import annotations

import types

import numpy as np
import pytest

from builder.errors import NotEvaluable
from builder.evaluate import compare
from builder.warp_backend import codegen, shipped_inputs, trial_run

SRC = """import warp as wp


@wp.struct
class Params:
    scale: float
    offsets: wp.array(dtype=float)


@wp.kernel
def step(x: wp.array(dtype=wp.vec3), idx: wp.array(dtype=int), p: Params, out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wp.length(x[idx[i]]) * p.scale + p.offsets[i]


@wp.kernel
def count(x: wp.array(dtype=float), flags: wp.array(dtype=int)):
    i = wp.tid()
    if x[i] > 2.0:
        flags[i] = 1


@wp.kernel
def lookup(mesh: wp.uint64, out: wp.array(dtype=float)):
    out[wp.tid()] = 0.0
"""


@pytest.fixture(scope="module")
def loaded():
    module, (ns,) = codegen.load_sources([("trial_run", SRC)], "wcir_test_trial_run")
    yield ns
    codegen.release(module)


def _trials(*sizes: int) -> list:
    return [types.SimpleNamespace(seed=k, launch=(n,)) for k, n in enumerate(sizes)]


def test_shipped_kernel_inputs_follow_its_types_and_every_array_is_kept(loaded):
    kernel = loaded["step"]
    arrays = trial_run.run(kernel, shipped_inputs.prepare(kernel, "cpu"), _trials(16, 9), "cpu", backward=True)
    assert arrays["0/out/x"].shape == (16, 3) and arrays["1/out/x"].shape == (9, 3)
    assert arrays["0/pre/idx"].min() >= 0 and arrays["0/pre/idx"].max() < 16  # valid indices into any array
    assert {"0/out/p.offsets", "0/grad/x", "0/pregrad/out", "1/grad/p.offsets"} <= set(arrays)
    assert not compare.body_independent(arrays, backward=False)
    assert not compare.body_independent(arrays, backward=True)  # d out / d x is not zero
    again = trial_run.run(kernel, shipped_inputs.prepare(kernel, "cpu"), _trials(16, 9), "cpu", backward=True)
    assert compare.compare(again, arrays, lambda dtype: (0.0, 0.0)) == (True, "")  # same seeds, same bytes


def test_a_kernel_these_inputs_never_reach_is_body_independent(loaded):
    kernel = loaded["count"]  # floats are in [0.1, 1]: x > 2 never holds, and flags has no gradient
    arrays = trial_run.run(kernel, shipped_inputs.prepare(kernel, "cpu"), _trials(16), "cpu", backward=True)
    assert compare.body_independent(arrays, backward=False) and compare.body_independent(arrays, backward=True)


def test_object_ids_cannot_be_built(loaded):
    with pytest.raises(NotEvaluable, match="uint64"):
        shipped_inputs.check(loaded["lookup"])


def test_struct_arrays_are_split_by_field():
    dtype = np.dtype([("a", np.float32), ("b", [("c", np.int32)])])
    split = trial_run.host("s", np.zeros(2, dtype))
    assert sorted(split) == ["s.a", "s.b.c"] and split["s.b.c"].dtype == np.int32
