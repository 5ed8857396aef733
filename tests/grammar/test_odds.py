"""Every probability the grammar draws with is a named field of ``Odds`` (or ``Policy``), and each one is live."""

from __future__ import annotations

import ast
import dataclasses
import random
import re
from pathlib import Path

import pytest

from builder.grammar import generator
from builder.grammar.odds import Odds
from builder.grammar.policy import POLICIES

GRAMMAR = Path(__file__).resolve().parents[2] / "builder" / "grammar"


def _is_random_call(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "random"


def test_no_probability_literal_in_grammar_code():
    """``rng.random() < 0.3`` is a weight outside the policy: categories could not differ in it."""
    found = []
    for path in sorted(GRAMMAR.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Compare) and _is_random_call(node.left):
                if any(isinstance(c, ast.Constant) for c in node.comparators):
                    found.append(f"{path.name}:{node.lineno}")
    assert not found, found


def test_every_odd_is_read_by_the_grammar():
    code = "\n".join(p.read_text() for p in GRAMMAR.glob("*.py") if p.name != "odds.py")
    unread = [f.name for f in dataclasses.fields(Odds) if not re.search(rf"\bodds\.{f.name}\b", code)]
    assert not unread, unread


@pytest.mark.parametrize(
    "change, match",
    [
        ({"float_plain": 1.5}, "float_plain=1.5 is not a probability"),
        ({"spmv_mean": -0.1}, "spmv_mean=-0.1 is not a probability"),
        ({"nice_literal": 1}, "nice_literal=1 is not a probability"),
        ({"trips_const": 0.7, "trips_param": 0.4}, "trips_const \\+ trips_param exceed 1"),
        ({"reduce_sum": 0.5, "reduce_op": 0.5, "reduce_extreme": 0.1}, "reduce_sum \\+ reduce_op"),
    ],
)
def test_bad_odds_are_refused_by_name(change, match):
    with pytest.raises(ValueError, match=match):
        Odds(**change)


_F32_ARRAY = re.compile(r"wp\.array\w*(?:\[(float|wp\.float32)\]|\(dtype=(float|wp\.float32)[,)])")


def _annotations(monkeypatch, float_plain: float, signature_groups: float = 0.0) -> set[str]:
    policy = POLICIES["arithmetic"]
    odds = dataclasses.replace(policy.odds, float_plain=float_plain, signature_groups=signature_groups)
    monkeypatch.setitem(POLICIES, "arithmetic", dataclasses.replace(policy, odds=odds))
    seen: set[str] = set()
    for i in range(40):
        source = generator.generate(random.Random(i), "arithmetic").source
        seen |= {a or b for a, b in _F32_ARRAY.findall(source)}
    return seen


def test_an_odd_steers_the_programs(monkeypatch):
    """float32 arrays are annotated ``float`` or ``wp.float32`` exactly as ``odds.float_plain`` says."""
    assert _annotations(monkeypatch, 1.0) == {"float"}
    assert _annotations(monkeypatch, 0.0) == {"wp.float32"}
    # the grouped house style is drawn whole: its types are spelled plainly whatever float_plain says
    assert _annotations(monkeypatch, 0.0, signature_groups=1.0) == {"float"}
