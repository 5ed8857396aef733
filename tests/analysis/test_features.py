"""Feature flags, builtin calls and expression depth on hand-written kernels with known answers."""

import ast

import pytest

from builder.analysis.features import FEATURES, builtin_calls, depth, rhs_depths
from builder.analysis.realism import Corpus

TILED = """
import warp as wp
from typing import Any

TILE = wp.constant(16)

@wp.struct
class Params:
    scale: wp.float16

@wp.func
def lerp_any(a: Any, b: Any, t: float):
    return a + (b - a) * t

@wp.func
def twice(x: float):
    return 2.0 * x

@wp.func
def twice(x: int):
    return 2 * x

@wp.kernel(enable_backward=False)
def tiled(a: wp.array2d[float], p: Params, ids: wp.array[wp.int8], out: wp.array[float]):
    i, j = wp.tid()
    if i >= a.shape[0]:
        return
    t = wp.tile_load(a, shape=(TILE, TILE))
    s = wp.tile_sum(t)
    for k in range(wp.static(TILE)):
        wp.atomic_add(out, k, lerp_any(s[0], twice(1.0), 0.5))

@wp.kernel
def plain(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = wp.sin(wp.cos(a[i]))
"""


def test_features_of_a_feature_rich_kernel_and_a_plain_one():
    corpus = Corpus("t", whole=False)
    corpus.add(TILED)
    tiled, plain = corpus.programs
    assert tiled.features == frozenset(FEATURES) - {"array_call_annotation", "geometry_query"}
    assert plain.features == frozenset({"array_call_annotation"})
    assert corpus.kinds == {"kernel": 2, "func": 3}
    assert corpus.share("tile") == 0.5
    with pytest.raises(ValueError, match="'nope'"):
        corpus.share("nope")


def test_builtin_calls_count_call_sites_in_warp_functions_only():
    tree = ast.parse(TILED + "\ndef host():\n    wp.launch(plain, dim=1)\n")
    functions = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name != "host"]
    calls = builtin_calls(functions)
    assert calls["tid"] == 2 and calls["tile_load"] == 1 and calls["sin"] == 1
    assert "launch" not in calls and "constant" not in calls


@pytest.mark.parametrize(
    ("expr", "expected"),
    [
        ("x", 1),
        ("-1.5", 1),
        ("wp.pi", 1),
        ("a[i]", 2),
        ("x * 2.0", 2),
        ("wp.sin(a[i])", 3),
        ("wp.sin(wp.cos(a[i])) + 1.0", 5),
        ("s.pos.x", 3),
    ],
)
def test_depth(expr, expected):
    assert depth(ast.parse(expr, mode="eval").body) == expected


def test_rhs_depths_cover_assignments_and_stores():
    fn = ast.parse("def f(a, i):\n    x = a[i] * 2.0\n    a[i] += wp.sin(x)\n    return x\n").body[0]
    assert sorted(rhs_depths([fn])) == [2, 3]
