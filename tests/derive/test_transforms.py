"""The transformations derived kernels are made with: pure functions of (seed, source kernel) that change what
their kind says and leave the rest as written; checked on real kernels warp-lang ships and over many seeds."""

from __future__ import annotations

import ast
import json
import re

import pytest

from builder.derive import NAMES_FILE, DerivePolicy, applicable, variants, vocabulary
from builder.derive.transforms import KINDS, PRECISIONS
from builder.errors import ConfigError
from builder.shipped.modules import modules
from builder.shipped.splits import kernel_defs

KERNEL = """import warp as wp


@wp.func
def falloff(d: float, h: float):
    return wp.max(h - d, 0.0) * 2.0


@wp.kernel
def integrate(x: wp.array(dtype=wp.vec3), v: wp.array(dtype=wp.vec3), dt: float):
    tid = wp.tid()
    # gravity, as the example writes it
    g = wp.vec3(0.0, -9.8, 0.0)
    s = wp.sin(dt) * 0.5
    vel = v[tid] + g * dt
    w = falloff(wp.length(vel), 1.0)
    v[tid] = vel * w
    x[tid] = x[tid] + vel * dt + g * s
"""


def _real_sources(n: int) -> list[tuple[str, str]]:
    """``(source, kernel name)`` of the first ``n`` kernels of warp-lang's examples: a real def after the import."""
    out = []
    for mod in modules(("examples",)):
        for k in kernel_defs(mod):
            name = re.search(r"def (\w+)\(", k.text).group(1)
            out.append(("import warp as wp\n\n\n" + k.text, name))
            if len(out) == n:
                return out
    return out


def _names(source: str) -> set[str]:
    return {n.id for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Name)}


def test_every_kind_applies_to_the_example_and_each_changes_only_what_it_says():
    assert applicable(KERNEL, "integrate") == tuple(KINDS)
    for seed in range(20):
        for kind, transform in KINDS.items():
            import random

            out = transform(KERNEL, "integrate", random.Random(seed), vocabulary())
            assert out is not None and out != KERNEL, kind
            ast.parse(out)
            assert "# gravity, as the example writes it" in out, kind  # comments and layout stay as written
            if kind == "reorder":
                assert sorted(out.splitlines()) == sorted(KERNEL.splitlines())
            if kind == "constants":  # only float literals change
                assert re.sub(r"\d+\.\d+(e-?\d+)?", "N", out) == re.sub(r"\d+\.\d+", "N", KERNEL)
            if kind == "precision":
                assert "vec3" in out and not re.search(r"wp\.vec3\b", out)
                assert "float" not in re.sub(r"float(64|16)", "", out)
            if kind == "rename":
                new = _names(out) - _names(KERNEL)
                words = set(vocabulary()["names"]) | set(vocabulary()["functions"])
                assert new and new <= words, new
            if kind == "swap":
                assert len(out) == len(KERNEL) or {"sin", "cos"} & set(re.findall(r"wp\.(\w+)", out))
            if kind == "inline":  # the call is gone, its body written in with the arguments; the func stays
                assert "w = (wp.max(1.0 - wp.length(vel), 0.0) * 2.0)" in out and out.count("falloff(") == 1
            if kind == "outline":
                assert out.count("@wp.func") == 2 and "from typing import Any" in out


@pytest.mark.parametrize("seed", range(6))
def test_variants_are_a_pure_function_of_seed_and_source(seed):
    for source, name in _real_sources(8):
        first = variants(seed, f"k/{name}", source, name, 5)
        assert first == variants(seed, f"k/{name}", source, name, 5)
        assert len({v.python_source for v in first}) == len(first)  # distinct, and none is the source
        assert source not in {v.python_source for v in first}
        for v in first:
            assert v.transforms and set(v.transforms) <= set(KINDS)
            assert list(v.transforms) == [k for k in KINDS if k in v.transforms]  # in the policy's order
            ast.parse(v.python_source)
        # the first variants do not depend on how many are asked for: a larger build extends a smaller one
        assert variants(seed, f"k/{name}", source, name, 2) == first[:2] or len(first) < 2


@pytest.mark.parametrize(
    "body, call, applies",
    [
        ("return a * a", "f(x[i])", True),  # a read twice, but a subscript of an array is no state change
        ("return a * a", "f(x[i] + 1.0)", False),  # an expression read twice would be computed twice
        ("return a + s", "f(x[i])", False),  # s is the kernel's parameter: the body's s is the module's
        ("return a + 1.0", "f(wp.atomic_add(x, i, 1.0))", False),  # an argument that changes state
        ('"""doc"""\n    return a + 1.0', "f(x[i] * 2.0)", True),
        ("b = a\n    return b", "f(x[i])", False),  # more than one return
    ],
)
def test_inline_writes_a_body_in_only_where_it_is_the_same_computation(body, call, applies):
    import random

    source = (
        "import warp as wp\n\ns = 2.0\n\n\n@wp.func\ndef f(a: float):\n    " + body + "\n\n\n@wp.kernel\n"
        "def k(x: wp.array(dtype=float), s: float):\n    i = wp.tid()\n    x[i] = " + call + " * s\n"
    )
    out = KINDS["inline"](source, "k", random.Random(0), vocabulary())
    assert (out is not None) is applies
    if applies:
        ast.parse(out)
        assert "x[i] = (" in out and out.count("f(") == 1


def test_a_kernel_nothing_applies_to_has_no_variants_and_the_policy_validates():
    bare = "import warp as wp\n\n\n@wp.kernel\ndef k():\n    pass\n"
    assert applicable(bare, "k") == () and variants(0, "k", bare, "k", 5) == []
    with pytest.raises(ConfigError, match="chances must give each of"):
        DerivePolicy(chances=(("rename", 0.5),))
    assert set(PRECISIONS["float64"].values()) >= {"float64", "vec3d", "mat33d", "quatd", "transformd"}


def test_the_names_come_from_real_train_only():
    words = json.loads(NAMES_FILE.read_text())
    assert len(words["names"]) > 1000 and len(words["functions"]) > 20
    from builder.shipped.splits import recorded

    # no name is one only a held-out package or an evaluation split uses: each came from train kernels, twice
    held_out = set()
    every = recorded()
    for mod in modules(("warp-nn",)):
        for k in kernel_defs(mod):
            assert every.split_of(mod, k.source_path) == "test"
            held_out |= {a.arg for a in ast.walk(ast.parse(k.text)) if isinstance(a, ast.arg)}
    assert held_out - set(words["names"]), "some held-out names must be absent, or the list was not from train"


@pytest.mark.slow
def test_the_names_file_is_what_the_train_kernels_give_now():
    from builder.derive import vocab

    assert vocab.main([]) == 0, "python -m builder.derive.vocab --write"
