"""Generator 4.4.0's names (``names.Namer``): domain-qualified names drawn from their own stream change no statement.

Python's tokenizer judges: with every name odd at zero the grammar draws programs whose tokens, identifiers aside,
are the same as the default's (comments, docstrings, line breaks and trailing commas aside: the layout is drawn
after the statements, and a longer name may tip a signature onto more lines).
"""

from __future__ import annotations

import dataclasses
import io
import keyword
import re
import tokenize

import pytest

from builder.grammar import generator
from builder.grammar import names as N
from builder.grammar.odds import Odds
from builder.grammar.policy import CATEGORIES, POLICIES
from builder.rng import derive_rng

NAME_ODDS = ("qualified_names", "name_modifier")
_SKIP = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.STRING}


def _shape(source: str) -> list[str]:
    out = []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type in _SKIP:
            continue
        out.append("ID" if tok.type == tokenize.NAME and not keyword.iskeyword(tok.string) else tok.string)
    # a trailing comma is layout too: a signature written a parameter per line has one
    return [t for t, nxt in zip(out, [*out[1:], ""]) if not (t == "," and nxt in (")", "]"))]


def _programs(seed: int, count: int) -> list:
    return [generator.generate(derive_rng(seed, "train", i, 0), CATEGORIES[i % len(CATEGORIES)]) for i in range(count)]


def test_names_change_no_statement(monkeypatch):
    default = _programs(11, 240)
    for name, pol in list(POLICIES.items()):
        plain = dataclasses.replace(pol.odds, **dict.fromkeys(NAME_ODDS, 0.0))
        monkeypatch.setitem(POLICIES, name, dataclasses.replace(pol, odds=plain))
    plain = _programs(11, 240)
    renamed = 0
    for a, b in zip(default, plain, strict=True):
        assert _shape(a.own_source) == _shape(b.own_source), a.kernel_name  # siblings are kept by their names
        assert (a.arg_type_strings(), a.arg_roles()) == (b.arg_type_strings(), b.arg_roles())
        assert (a.launch_shape, a.block_dim, a.backward) == (b.launch_shape, b.block_dim, b.backward)
        renamed += a.own_source != b.own_source
    assert renamed > 60, "the default odds renamed too few kernels to judge"


def test_qualified_names_are_fresh_identifiers_from_the_vocabulary():
    programs = _programs(5, 480)
    domains = re.compile(rf"\b(?:{'|'.join(map(re.escape, N.DOMAINS))})_\w+")
    qualified = 0
    for p in programs:
        names = [a.name for a in p.args]
        assert len(set(names)) == len(names)
        assert all(n.isidentifier() and not keyword.iskeyword(n) for n in names)
        qualified += any(domains.fullmatch(n) for n in names)
    # half the kernels take a domain, and most of those name an argument after it
    assert 0.2 < qualified / len(programs) < 0.6


def test_a_namer_without_a_domain_leaves_stems_alone():
    odds = Odds(qualified_names=0.0, name_modifier=0.0)
    namer = N.Namer(derive_rng("names", 0), odds)
    assert [namer.argument("mass"), namer.parameter("dt"), namer.local("v"), namer.kernel("apply_forces")] == [
        "mass",
        "dt",
        "v",
        "apply_forces",
    ]


@pytest.mark.parametrize("stem", ["body_q", "body"])
def test_a_domain_is_not_repeated_in_a_name_that_has_it(stem):
    odds = Odds(qualified_names=1.0, qualified_argument=1.0, domain_repeat=1.0, name_modifier=0.0)
    namer = N.Namer(derive_rng("names", 1), odds)
    namer.domain = "body"
    assert namer.argument(stem) == stem
