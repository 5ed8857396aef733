"""Redundant parentheses in right-hand sides, read from the tokens (the syntax tree drops them).

A right-hand side (the value of an assignment, a store or a ``return``) is *over-parenthesised* when

- it sits on one line and is wrapped entirely in parentheses: ``x = (a + b)``, ``return (v)`` (a parenthesised
  tuple is a tuple, not a wrapping; a wrapping spread over several lines is the usual way to continue a line and
  does not count), or
- it holds a doubly parenthesised group: ``((a + b))``, ``f((a + b))``, one pair directly inside another with
  nothing between them (a tuple argument ``f((a, b))`` does not count).

It has *redundant parentheses* when it is wrapped on one line, or when removing some grouping pair inside it
(not a call's or a tuple's) leaves the same syntax tree: ``(a * b) + c``, ``f((x))``, ``((a - b) * h) * g``.
This is the broader count: people add such pairs for clarity; a generator that wraps every operation adds them
everywhere.
"""

from __future__ import annotations

import ast
import io
import keyword
import tokenize
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from builder.analysis.kernels import own_nodes

ASSIGN_OPS = frozenset({"=", "+=", "-=", "*=", "/=", "//=", "%=", "**=", "&=", "|=", "^=", "<<=", ">>=", "@="})
OPENERS = {"(": ")", "[": "]", "{": "}"}


@dataclass(frozen=True)
class _Tokens:
    texts: tuple[str, ...]
    lines: tuple[int, ...]
    match: dict[int, int]  # opening bracket index -> closing bracket index
    listing: frozenset[int]  # opening brackets holding a top-level comma or ``for``: tuples, generators
    starts: dict[tuple[int, int], int]  # (line, column) in the module -> token index
    ends: dict[tuple[int, int], int]


def _tokens(fn: ast.FunctionDef, lines: Sequence[str]) -> _Tokens | None:
    """The function's tokens with module positions; None when its text does not tokenize on its own."""
    shift = fn.col_offset
    segment = []
    shifts = []
    for line in lines[fn.lineno - 1 : fn.end_lineno]:
        cut = shift if line[:shift].strip() == "" else 0
        segment.append(line[cut:])
        shifts.append(cut)
    texts, rows, starts, ends = [], [], {}, {}
    try:
        for tok in tokenize.generate_tokens(io.StringIO("".join(segment)).readline):
            if tok.type not in (tokenize.OP, tokenize.NAME, tokenize.NUMBER, tokenize.STRING):
                continue
            (r0, c0), (r1, c1) = tok.start, tok.end
            starts[(r0 + fn.lineno - 1, c0 + shifts[r0 - 1])] = len(texts)
            ends[(r1 + fn.lineno - 1, c1 + shifts[r1 - 1])] = len(texts)
            texts.append(tok.string)
            rows.append(r0)
    except (tokenize.TokenError, IndentationError, SyntaxError, IndexError):
        return None
    match, listing, stack = {}, set(), []
    for i, text in enumerate(texts):
        if text in OPENERS:
            stack.append(i)
        elif text in (")", "]", "}") and stack:
            match[stack.pop()] = i
        elif text in (",", "for") and stack:
            listing.add(stack[-1])
    return _Tokens(tuple(texts), tuple(rows), match, frozenset(listing), starts, ends)


def _wrapped(toks: _Tokens, s: int, e: int) -> bool:
    if s < 2 or toks.texts[s - 1] != "(" or toks.match.get(s - 1) != e + 1:
        return False
    if toks.texts[s - 2] not in ASSIGN_OPS and toks.texts[s - 2] != "return":
        return False
    return toks.lines[s - 1] == toks.lines[e + 1]


def _doubled(toks: _Tokens, s: int, e: int) -> bool:
    for i in range(s, e):
        if toks.texts[i] == "(" and toks.texts[i + 1] == "(" and i + 1 not in toks.listing:
            inner = toks.match.get(i + 1)
            if inner is not None and toks.match.get(i) == inner + 1:
                return True
    return False


def _redundant(toks: _Tokens, s: int, e: int) -> bool:
    """Whether some grouping pair in tokens s..e (inclusive) can go without changing the parse."""
    texts = list(toks.texts[s : e + 1])
    try:
        base = ast.dump(ast.parse(" ".join(texts), mode="eval"))
    except SyntaxError:
        return False
    for o in range(s, e + 1):
        c = toks.match.get(o)
        if toks.texts[o] != "(" or c is None or c > e or o in toks.listing:
            continue
        before = toks.texts[o - 1] if o > s else ""
        if before in (")", "]") or (before.isidentifier() and not keyword.iskeyword(before)):
            continue  # a call's parentheses
        trial = texts[: o - s] + texts[o - s + 1 : c - s] + texts[c - s + 1 :]
        try:
            if ast.dump(ast.parse(" ".join(trial), mode="eval")) == base:
                return True
        except SyntaxError:
            continue
    return False


def _values(fn: ast.FunctionDef, toks: _Tokens) -> Iterator[tuple[int, int]]:
    """Token ranges (first, last) of the right-hand sides in ``fn``, wrapping parentheses excluded."""
    for node in own_nodes(fn):
        if not isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Return)) or node.value is None:
            continue
        v = node.value
        s = toks.starts.get((v.lineno, v.col_offset))
        e = toks.ends.get((v.end_lineno, v.end_col_offset))
        if s is not None and e is not None:  # None on a non-ASCII line: byte and character columns differ
            yield s, e


def paren_habits(fn: ast.FunctionDef, lines: Sequence[str]) -> frozenset[str]:
    """Which of ``over_parenthesised`` and ``redundant_parens`` ``fn`` shows; ``lines``: the module's lines."""
    toks = _tokens(fn, lines)
    if toks is None:
        return frozenset()
    found = set()
    for s, e in _values(fn, toks):
        wrapped = _wrapped(toks, s, e)
        if wrapped or _doubled(toks, max(s - 1, 0), min(e + 1, len(toks.texts) - 1)):
            found.add("over_parenthesised")
        if wrapped or _redundant(toks, s, e):
            found.add("redundant_parens")
        if len(found) == 2:
            break
    return frozenset(found)
