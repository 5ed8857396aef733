"""How a drawn kernel is written out: choices real Warp code makes that change no statement.

Written Warp kernels put a short signature on one line and a long one a parameter per line; many open with a
docstring; many mark their blocks with a comment and a blank line (the realism judge, ``builder.analysis.judge``,
found these the clearest tells of generated code). None of this reaches Warp's code generator as a statement: it
skips a function's leading string constant, and comments and blank lines are not tokens, so the emitted code is
the same but for the source-line numbers in its comments. The normalized form (``normalize``) drops docstrings
and a trailing comma before a closing bracket, so a program's split does not depend on how it is laid out.

Every choice is drawn from the program's own random stream after its statements (``KernelCtx.program``), with
the probabilities in ``Odds`` (``signature_one_line``, ``docstring``, ``docstring_sources``, ``block_comments``,
``block_comment_each``, ``blank_lines``).
"""

from __future__ import annotations

import random
import re

from builder.grammar.odds import Odds

ONE_LINE_WIDTH = 100  # a signature longer than this is written a parameter per line, as formatters do

# phrases a comment over a block may say, by block: what real kernels write there
_COMMENTS = {
    "loads": ("# load inputs", "# read this thread's values", "# gather inputs", "# fetch"),
    "body": ("# compute", "# update", "# per-thread work", "# evaluate"),
    "store": ("# write the result", "# store results", "# write back", "# output"),
}
_STORE = re.compile(r"[A-Za-z_]\w*\[[^\]]*\]\s*[-+*/]?=")  # the block opens with a store into an array
_VERBS = {"acc": "Accumulate", "inout": "Update", "out": "Compute"}


def signature(name: str, params: list[str], rng: random.Random, odds: Odds) -> str:
    """The ``def`` line(s): on one line when short enough and drawn so, else a parameter per line with the
    trailing comma a formatter leaves."""
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
        out += lines
    return out


def _join(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
