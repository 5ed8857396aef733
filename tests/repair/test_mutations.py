"""The edits that break kernels: pure functions of the RNG and the source, each a small valid-Python change."""

from __future__ import annotations

import ast

import pytest

from builder.grammar.policy import CATEGORIES
from builder.grammar.sample import sample
from builder.repair import diagnostics
from builder.repair.mutations import KINDS, candidates
from builder.rng import derive_rng

KERNEL = '''import warp as wp


@wp.func
def scale(a: float, b: float):
    return a * b + 1.0


@wp.kernel
def k(f: wp.array[wp.vec3], out: wp.array2d[float], dx: wp.float32):
    """Docstring."""
    i = wp.tid()
    f0 = wp.normalize(f[i])
    s = float(0.0)
    for j in range(3):
        s = s + f0[j] * 2.0
    out[i, 0] = scale(s, dx)
'''


@pytest.mark.parametrize("seed", range(6))
def test_every_kind_applies_to_a_kernel_that_has_its_sites_and_is_a_small_valid_edit(seed):
    made = candidates(derive_rng(seed, "train", 0, "repair"), KERNEL, "k")
    assert sorted(m.kind for m in made) == sorted(KINDS)  # this kernel has a site for every kind
    for m in made:
        ast.parse(m.broken_source)  # Warp, not Python's parser, is what rejects it
        changed = [line for line in diagnostics.diff(m.broken_source, KERNEL).splitlines() if line[:1] in "+-"]
        assert m.broken_source != KERNEL and len(changed) <= 2 + 6, (m.kind, changed)  # the headers and the edit


def test_the_order_kinds_are_tried_in_is_drawn():
    orders = {
        tuple(m.kind for m in candidates(derive_rng(seed, "train", 0, "repair"), KERNEL, "k")) for seed in range(8)
    }
    assert len(orders) == 8


@pytest.mark.parametrize("index", range(12))
def test_candidates_are_a_pure_function_of_the_coordinates(index):
    program = sample(0, "test", index, CATEGORIES).program
    one = candidates(derive_rng(0, "test", index, "repair"), program.source, program.kernel_name)
    two = candidates(derive_rng(0, "test", index, "repair"), program.source, program.kernel_name)
    other = candidates(derive_rng(1, "test", index, "repair"), program.source, program.kernel_name)
    assert one == two and one
    assert one != other or len(one) == 1


def test_a_diagnostic_is_read_as_warp_words_it():
    message = 'Error while parsing function "k" at kernel.py:20:\n    out[i] = v\n;The number of indices provided (1)'
    dg = diagnostics.parse(f"RuntimeError: {message}")
    assert dg == diagnostics.Diagnostic("RuntimeError", message, 20)
    assert diagnostics.parse("WarpCodegenError: Incomplete argument annotations on function k").line is None


def test_a_path_or_an_address_in_a_message_is_found():
    assert diagnostics.machine_specific("at /home/me/work/kernel.py:3: x") == "/home/me/work/kernel.py"
    assert diagnostics.machine_specific("<object at 0x7f3a2b4c5d60>") == "0x7f3a2b4c5d60"
    assert diagnostics.machine_specific("at kernel.py:3: types [vec3f, float32] a/b") is None
