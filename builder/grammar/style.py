"""How a drawn kernel is written out: choices real Warp code makes that change no statement.

Written Warp kernels put a short signature on one line and a long one a parameter per line; many open with a
docstring; many mark their blocks with a comment and a blank line (the realism judge, ``builder.analysis.judge``,
found these the clearest tells of generated code). None of this reaches Warp's code generator as a statement: it
skips a function's leading string constant, and comments and blank lines are not tokens, so the emitted code is
the same but for the source-line numbers in its comments. The normalized form (``normalize``) drops docstrings
and a trailing comma before a closing bracket, so a program's split does not depend on how it is laid out.

Since generator 4.2.0 a spaced-out kernel also has blank lines between some statements of its body, and a
statement ending in a long call may have the call's arguments on their own lines, as ruff and black write it
(a line break inside brackets is no token either).

Every choice is drawn from the program's own random stream after its statements (``KernelCtx.program``), with
the probabilities in ``Odds`` (``signature_one_line``, ``docstring``, ``docstring_sources``, ``block_comments``,
``block_comment_each``, ``inner_comments``, ``blank_lines``, ``body_blank_lines``, ``wrap_calls``).
"""

from __future__ import annotations

import random
import re

from builder.grammar.odds import Odds

# a longer signature is written a parameter per line, as ruff leaves it at the line length of Warp and newton
# (120; 100 before generator 4.3.0)
ONE_LINE_WIDTH = 120
WRAP_WIDTH = 72  # a body statement ending in a call longer than this may be wrapped (real lines run longer)

# phrases a comment over a block may say, by block: what real kernels write there
_COMMENTS = {
    "loads": ("# load inputs", "# read this thread's values", "# gather inputs", "# fetch"),
    "body": ("# compute", "# update", "# per-thread work", "# evaluate"),
    "store": ("# write the result", "# store results", "# write back", "# output"),
}
# phrases a comment opening a block inside the body may say, by the statement that opens it (generator 4.4.0:
# real kernels comment their branches and loops from the inside, and some comments run over two lines): templates
# true of any block they open, like the block comments above
_INNER_COMMENTS = {
    "if": (
        "# only where the test holds",
        "# the case the test selects",
        "# this branch only",
        "# threads that pass the test",
        "# threads that fail the test\n# skip this block",
    ),
    "elif": ("# the next case", "# otherwise, if this holds"),
    "else": ("# otherwise", "# the remaining case", "# where the test fails"),
    "for": (
        "# one pass per iteration",
        "# loop body",
        "# each iteration",
        "# Warp unrolls this loop when its trip\n# count is a wp.static constant",
    ),
    "while": ("# until the test fails",),
}
_STORE = re.compile(r"[A-Za-z_]\w*\[[^\]]*\]\s*[-+*/]?=")  # the block opens with a store into an array
_VERBS = {"acc": "Accumulate", "inout": "Update", "out": "Compute"}


# the comment over each group of a grouped signature, by what its parameters are (a phrase listed twice is drawn
# twice as often: mujoco-warp's uniforms are all "# Model:")
GROUP_COMMENTS = {
    "model": ("# Model:", "# Model:", "# Params:"),
    "in": ("# Data in:", "# In:", "# Inputs:"),
    "out": ("# Data out:", "# Out:", "# Outputs:"),
}


def signature(name: str, params: list[str], rng: random.Random, odds: Odds, groups: list[str] | None = None) -> str:
    """The ``def`` line(s): on one line when short enough and drawn so, else a parameter per line with the
    trailing comma a formatter leaves. With ``groups`` (each parameter's group, a key of ``GROUP_COMMENTS``,
    parameters of a group together) a parameter per line, each group under its comment."""
    if groups is not None:
        lines, last = [], None
        for p, group in zip(params, groups):
            if group != last:
                lines.append(f"    {rng.choice(GROUP_COMMENTS[group])}\n")
                last = group
            lines.append(f"    {p},\n")
        return f"def {name}(\n" + "".join(lines) + "):"
    one = f"def {name}({', '.join(params)}):"
    if len(one) <= ONE_LINE_WIDTH and rng.random() < odds.signature_one_line:
        return one
    return f"def {name}(\n" + "".join(f"    {p},\n" for p in params) + "):"


def docstring(roles: list[tuple[str, str]], rng: random.Random, odds: Odds) -> list[str]:
    """A one-line docstring naming what the kernel writes and from what, or none. ``roles``: (name, role) of
    every argument in signature order."""
    if rng.random() >= odds.docstring:
        return []
    written = [n for n, r in roles if r in _VERBS]
    read = [n for n, r in roles if r not in _VERBS or r == "inout"]
    if not written:
        return []
    verb = _VERBS[next(r for n, r in roles if n == written[0])]
    text = f"{verb} {_join(written)}"
    if read and rng.random() < odds.docstring_sources:
        text += f" from {_join(read[:3])}"
    return [f'    """{text}."""']


def blocks(parts: list[tuple[str, list[str]]], rng: random.Random, odds: Odds) -> list[str]:
    """The body's blocks (``start``: the thread index and early exits, ``loads``, ``body``; a block may be empty)
    joined, each but the first maybe under a comment and after a blank line."""
    comment = rng.random() < odds.block_comments
    blank = rng.random() < odds.blank_lines
    out: list[str] = []
    for kind, lines in parts:
        if not lines:
            continue
        commented = comment and kind in _COMMENTS and rng.random() < odds.block_comment_each
        if out and (blank or commented):  # written code sets a commented block apart
            out.append("")
        if commented:
            first = lines[0].lstrip()
            indent = lines[0][: len(lines[0]) - len(first)]
            stores = kind == "body" and _STORE.match(first) is not None
            out.append(indent + rng.choice(_COMMENTS["store" if stores else kind]))
        if kind == "body" and comment:
            lines = _inner_comments(lines, rng, odds.inner_comments)
        if kind == "body" and blank:
            lines = _spaced(lines, rng, odds.body_blank_lines)
        if kind != "start" and rng.random() < odds.wrap_calls:
            lines = [w for line in lines for w in _wrapped(line)]
        out += lines
    return out


def _inner_comments(lines: list[str], rng: random.Random, chance: float) -> list[str]:
    """The body with a comment as the first line of some blocks it opens (an ``if``, ``else`` or loop body)."""
    out: list[str] = []
    opener = ""
    for line in lines:
        first = line.lstrip()
        if opener and rng.random() < chance:
            indent = line[: len(line) - len(first)]
            out += [indent + c for c in rng.choice(_INNER_COMMENTS[opener]).split("\n")]
        out.append(line)
        word = first.split(" ", 1)[0].rstrip(":")
        opener = word if first.endswith(":") and word in _INNER_COMMENTS else ""
    return out


def _spaced(lines: list[str], rng: random.Random, chance: float) -> list[str]:
    """The body with a blank line before some of its top-level statements (not before an ``else`` or after a
    line opening a block)."""
    out: list[str] = []
    for line in lines:
        top = line.startswith("    ") and not line[4].isspace() and not line.lstrip().startswith(("else", "elif"))
        if out and top and out[-1] and not out[-1].endswith(":") and rng.random() < chance:
            out.append("")
        out.append(line)
    return out


def _wrapped(line: str) -> list[str]:
    """A statement ending in a call of two or more arguments, longer than ``WRAP_WIDTH``, with the call's arguments
    on their own lines: all on one when they fit, else one per line with a trailing comma (as ruff and black
    write it); any other line as it is."""
    if len(line) <= WRAP_WIDTH or not line.endswith(")") or line.rstrip().endswith(":") or line.lstrip()[:1] == "#":
        return [line]
    depth, start, commas = 0, -1, []
    for n in range(len(line) - 1, -1, -1):  # the ``(`` matching the last ``)``, and its top-level commas
        c = line[n]
        if c in ")]":
            depth += 1
        elif c in "([":
            depth -= 1
            if depth == 0:
                start = n
                break
        elif c == "," and depth == 1:
            commas.append(n)
    if start <= 0 or not commas or not (line[start - 1].isalnum() or line[start - 1] == "_"):
        return [line]
    indent = line[: len(line) - len(line.lstrip())]
    cuts = [start, *reversed(commas), len(line) - 1]
    args = [line[a + 1 : b].strip() for a, b in zip(cuts, cuts[1:])]
    inner = indent + "    "
    hugged = inner + ", ".join(args)
    if len(hugged) <= WRAP_WIDTH:
        return [line[: start + 1], hugged, indent + ")"]
    return [line[: start + 1], *(f"{inner}{a}," for a in args), indent + ")"]


def _join(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
