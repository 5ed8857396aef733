"""Habit detectors and parenthesis counts on hand-written kernels with known answers."""

import ast

import pytest

from builder.analysis.habits import HABITS, habits
from builder.analysis.kernels import warp_functions
from builder.analysis.parens import paren_habits


def _habits(source: str) -> frozenset[str]:
    tree = ast.parse(source)
    functions = [fn for fn, _ in warp_functions(tree)]
    return habits(functions, source.splitlines(keepends=True))


GENERATED_STYLE = """
import warp as wp

@wp.kernel
def k(a: wp.array(dtype=float), b: wp.array(dtype=int), out: wp.array(dtype=float)):
    tid = wp.tid()
    x = (a[tid] + 1.0)
    y = float(tid) * 0.01
    n = a[wp.max(tid - 1, 0)]
    m = b[wp.min(tid + 1, b.shape[0] - 1)]
    z = (-3 - int(x)) - -6
    c = wp.clamp(x, 0.5, 0.5)
    out[tid] = x + y * 1.37
"""

REAL_STYLE = """
import warp as wp

@wp.func
def smooth(r: float, h: float) -> float:
    q = r / h
    return (1.0 - q) * (1.0 - q)

@wp.kernel
def k(x: wp.array[wp.vec3], h: float, out: wp.array[float]):
    i = wp.tid()
    d = wp.length(x[i])
    w = smooth(d, h)
    out[i] = w * h + out[i]
"""


def test_generated_style_kernel_shows_every_habit():
    assert _habits(GENERATED_STYLE) == frozenset(HABITS)


def test_real_style_kernel_shows_none():
    assert _habits(REAL_STYLE) == frozenset()


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("x = (a + b)", {"over_parenthesised", "redundant_parens"}),
        ("x = wp.sin((a + b))", {"over_parenthesised", "redundant_parens"}),
        ("x = (a * b) + c", {"redundant_parens"}),
        ("x = -((a / b) ** 2.0)", {"redundant_parens"}),
        ("x = (a + b) * c", set()),
        ("x = (-a) ** 2.0", set()),
        ("x = wp.vec2((a, b)[0], c)", set()),
        ("x = a if (b > c) else c", {"redundant_parens"}),
        ("x = (\n        a\n        + b\n    )", set()),
    ],
)
def test_paren_habits(line, expected):
    source = f"import warp as wp\n\n@wp.func\ndef f(a: float, b: float, c: float):\n    {line}\n    return x\n"
    fn = ast.parse(source).body[1]
    assert paren_habits(fn, source.splitlines(keepends=True)) == frozenset(expected)


HEAD = "import warp as wp\n\n@wp.kernel\ndef k(a: wp.array2d(dtype=float), x: float):\n    tid = wp.tid()\n"


@pytest.mark.parametrize(
    ("expr", "habit"),
    [
        ("- -x", "double_negative"),
        ("-(-0.25)", "double_negative"),
        ("x - -6", "double_negative"),
        ("wp.float64(tid) * -0.5", "float_index_filler"),
        ("0.01 * float(tid)", "float_index_filler"),
        ("a[wp.max(tid - 2, 0), 1]", "neighbour_clamp_index"),
        ("wp.clamp(x, wp.float64(0.0), wp.float64(0.0))", "equal_bound_clamp"),
    ],
)
def test_expression_habits(expr, habit):
    source = f"{HEAD}    y = {expr}\n"
    assert habit in _habits(source)


@pytest.mark.parametrize(
    "expr",
    ["x - 6", "float(tid) * 2.0", "float(tid) * x", "a[tid - 1, 0]", "wp.clamp(x, 0.0, 1.0)", "-x"],
)
def test_expression_habits_not_triggered(expr):
    source = f"{HEAD}    y = {expr}\n"
    assert _habits(source) == frozenset()


def test_weighted_mixing_term_needs_a_literal_weight_on_an_output_store():
    head = "import warp as wp\n\n@wp.kernel\ndef k(a: wp.array(dtype=float), w: float):\n    i = wp.tid()\n"
    assert "weighted_mixing_term" in _habits(head + "    a[i] = a[i] + int(a[i] * 10.0) * 7\n")
    assert "weighted_mixing_term" in _habits(head + "    a[i] += w + a[i] * wp.float32(0.37)\n")
    assert _habits(head + "    a[i] = a[i] + a[i] * w\n") == frozenset()
    assert _habits(head + "    v = wp.vec2()\n    v[0] = w + a[i] * 2.0\n") == frozenset()
