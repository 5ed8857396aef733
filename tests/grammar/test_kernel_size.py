"""Generator 4.5.0's short kernels (``idioms.output_count``): elementwise and reduction kernels storing one value.

Whether a kernel is short is drawn from a stream of its own, so a kernel that is not is the program the grammar
drew before; a short one stores one value from expressions at most ``Policy.short_depth`` deep, and Python's
``ast`` reads what each wrote.
"""

from __future__ import annotations

import ast
import dataclasses

from builder.grammar import generator
from builder.grammar.policy import CATEGORIES, POLICIES
from builder.rng import derive_rng

SIZED = {name for name, pol in POLICIES.items() if pol.idiom in ("elementwise", "reduction")}


def _programs(seed: int, count: int, monkeypatch=None, **odds) -> list:
    # one kernel a module: siblings (tested in test_siblings.py) would be drawn short or not as well
    odds = {"module_siblings": 0.0, **odds}
    for name, pol in list(POLICIES.items()):
        monkeypatch.setitem(POLICIES, name, dataclasses.replace(pol, odds=dataclasses.replace(pol.odds, **odds)))
    return [generator.generate(derive_rng(seed, "train", i, 0), CATEGORIES[i % len(CATEGORIES)]) for i in range(count)]


def _kernel(source: str) -> ast.FunctionDef:
    tree = ast.parse(source)
    return next(n for n in tree.body if isinstance(n, ast.FunctionDef) and "kernel" in ast.unparse(n.decorator_list[0]))


def _stores(fn: ast.FunctionDef) -> list[ast.stmt]:
    """The statements that write an array element (``a[i] = ...``, ``a[i] += ...``)."""
    return [
        n
        for n in ast.walk(fn)
        if isinstance(n, (ast.Assign, ast.AugAssign))
        and any(isinstance(t, ast.Subscript) for t in (n.targets if isinstance(n, ast.Assign) else [n.target]))
    ]


def test_kernels_that_are_not_short_are_unchanged(monkeypatch):
    default = _programs(13, 240, monkeypatch)
    plain = _programs(13, 240, monkeypatch, short_kernel=0.0)
    changed = [a.category for a, b in zip(default, plain, strict=True) if a.source != b.source]
    assert set(changed) <= SIZED, "a kernel that is not short changed"
    sized = sum(p.category in SIZED for p in default)
    # 30% of the sized kernels are short; some of those are the same program (a one-store, shallow kernel)
    assert 0.1 * sized < len(changed) < 0.4 * sized


def test_a_short_kernel_stores_one_value(monkeypatch):
    programs = _programs(17, 160, monkeypatch, short_kernel=1.0)
    for p in programs:
        if POLICIES[p.category].idiom == "elementwise":
            # one store (a vector may be stored a component at a time, into one array)
            targets = {
                ast.unparse(s.targets[0] if isinstance(s, ast.Assign) else s.target).split("[")[0]
                for s in _stores(_kernel(p.source))
            }
            assert len(targets) == 1, p.source
