"""Held out means unseen: the generator's words may come from real's train split, never from a held-out package
alone. A word of the grammar (an identifier or a comment phrase any of its string constants holds) that occurs in a
held-out package's kernels and in no kernel of real's train split fails, Warp's own API names excepted."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

_WORD = re.compile(r"[A-Za-z_]\w*")
GRAMMAR = Path(__file__).resolve().parents[2] / "builder" / "grammar"
# strings of the grammar that never reach a program: the names of its idioms and expression kinds
NOT_WRITTEN = {"elementwise": "an idiom (policy.IDIOMS)", "matvec": "an expression kind (expr_vec)"}
# and the names of the word lists (names.py reads words.json by them)
NOT_WRITTEN |= {k: "a word list's name" for p in GRAMMAR.glob("*.json") for k in json.loads(p.read_text())}


def grammar_words() -> dict[str, str]:
    """Every identifier-like string constant and comment phrase of the grammar's modules and word lists (its JSON
    data) -> where it is."""
    out = {}
    for path in sorted(GRAMMAR.glob("*.json")):
        for text in _strings(json.loads(path.read_text())):
            if _WORD.fullmatch(text.strip()) or text.startswith("# "):
                out.setdefault(text.strip(), path.name)
    for path in sorted(GRAMMAR.glob("*.py")):
        tree = ast.parse(path.read_text())
        parts = {id(v) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for v in n.values}  # f-string pieces
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in parts:
                text = node.value.strip()
                if _WORD.fullmatch(text) or text.startswith("# "):
                    out.setdefault(text, f"{path.name}:{node.lineno}")
    return out


def _strings(data) -> list[str]:
    if isinstance(data, str):
        return [data]
    items = data.values() if isinstance(data, dict) else data if isinstance(data, list) else []
    return [s for item in items for s in _strings(item)]


def _has(text: str, word: str) -> bool:
    if word.startswith("#"):
        return word in text
    return re.search(rf"(?<![\w.]){re.escape(word)}(?!\w)", text) is not None


def test_no_generator_word_comes_from_a_held_out_package_alone():
    pytest.importorskip("warp_nn", reason="the real extra installs the held-out packages")
    import warp as wp

    from builder.shipped.modules import modules
    from builder.shipped.splits import assign, group_of, kernel_defs

    mods = tuple(modules())
    assigned = assign(mods)
    held, train = [], []
    for m in mods:
        for k in kernel_defs(m):
            if group_of(m.package) == "held-out":
                held.append(k.text)
            elif assigned.split_of(m, k.source_path) == "train":
                train.append(k.text)
    assert held and train
    held_text, train_text = "\n".join(held), "\n".join(train)
    api = set(dir(wp)) | set(dir(wp.types))
    words = grammar_words()
    assert len(words) > 500, "the word lists are read"
    only_held = sorted(
        f"{w!r} ({where})"
        for w, where in words.items()
        if w not in api and w not in NOT_WRITTEN and len(w) > 2 and _has(held_text, w) and not _has(train_text, w)
    )
    assert not only_held, "generator words seen only in held-out packages: " + ", ".join(only_held)


def test_the_check_sees_a_planted_word():
    assert _has("def k(body_q: wp.array(dtype=wp.transform)):", "body_q")
    assert not _has("x.body_q_out = 1", "body_q") and not _has("wp.body_q", "body_q")
    assert _has("    # Data in:\n", "# Data in:")
