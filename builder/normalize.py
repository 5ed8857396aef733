"""Program shape and builtin usage, read from the Python source.

The normalized form replaces identifiers (not Warp's own ``wp.*`` names or
Python keywords) by their order of first appearance and every literal by
``N``; two programs with the same normalized form teach the same thing, so
the split assignment and the duplicate checks key on its hash.
"""

from __future__ import annotations

import hashlib
import keyword
import re
from collections.abc import Iterator

_KEEP = {"wp", "range", "float", "int", "True", "False", "None"}

# One regular-expression pass over the source instead of the tokenize and ast modules, which dominated the
# cost of drawing a row (every row draws about three candidates and hashes each). For the code the generator
# writes it gives the tokens tokenize gives; tests/test_generator.py checks both functions below against
# tokenize / ast versions over many generated programs.
_TOKEN = re.compile(r"""
    (?P<newline>\r?\n[ \t\f]*)
  | (?P<number>0[xXoObB][\da-fA-F_]+|(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][-+]?\d[\d_]*)?[jJ]?)
  | (?P<string>[rRbBuUfF]{0,2}(?:'[^'\\\n]*(?:\\.[^'\\\n]*)*'|"[^"\\\n]*(?:\\.[^"\\\n]*)*"))
  | (?P<name>[^\W\d]\w*)
  | (?P<op>\*\*=|//=|>>=|<<=|->|:=|\.\.\.|[-+*/%&|^@<>=!:]=|\*\*|//|<<|>>|[-+*/%&|^~<>=()\[\]{}:,.;@])
  | (?P<space>[ \t\f]+|\\\r?\n)
  | (?P<comment>\#[^\r\n]*)
  | (?P<error>.)
""", re.VERBOSE)


def tokens(source: str) -> Iterator[tuple[str, str]]:
    """``(kind, text)`` pairs as tokenize orders them, without NL and COMMENT tokens.

    Kinds: name, number, string, op, and the layout kinds newline ("\\n"), indent (its whitespace),
    dedent ("") and end ("").
    """
    indents = [""]
    depth = 0  # inside brackets a line break is not a NEWLINE and indentation does not count
    lead, at_line_start = "", True
    for m in _TOKEN.finditer("\n" + source):
        kind, text = m.lastgroup, m.group()
        if kind == "newline":
            if depth == 0:
                if not at_line_start:
                    yield "newline", "\n"
                at_line_start, lead = True, text.lstrip("\r\n")
            continue
        if kind in ("space", "comment"):
            continue
        if kind == "error":
            raise ValueError(f"cannot tokenize {text!r} in a generated program")
        if at_line_start:
            if len(lead) > len(indents[-1]):
                indents.append(lead)
                yield "indent", lead
            while len(lead) < len(indents[-1]):
                indents.pop()
                yield "dedent", ""
            at_line_start = False
        if kind == "op":
            if text in ("(", "[", "{"):
                depth += 1
            elif text in (")", "]", "}"):
                depth -= 1
        yield kind, text
    if not at_line_start:
        yield "newline", "\n"
    for _ in indents[1:]:
        yield "dedent", ""
    yield "end", ""


def normalized(source: str) -> str:
    names: dict[str, str] = {}
    out: list[str] = []
    prev = ""
    for kind, text in tokens(source):
        raw = text
        if kind == "name" and text not in _KEEP and prev != "." and not keyword.iskeyword(text):
            text = names.setdefault(text, f"v{len(names)}")
        elif kind == "number":
            text = "N"
        out.append(text)
        prev = raw
    return " ".join(out)


def normalized_sha256(source: str) -> str:
    return hashlib.sha256(normalized(source).encode()).hexdigest()


# Warp's builtin names for Python's operators: binary and augmented (``-`` and ``-=`` are both "sub"), unary.
_BINARY = {"+": "add", "-": "sub", "*": "mul", "/": "div", "//": "floordiv", "%": "mod", "@": "mul",
           "&": "bit_and", "|": "bit_or", "^": "bit_xor", "<<": "lshift", ">>": "rshift", "**": "pow"}
_BINARY.update({op + "=": name for op, name in list(_BINARY.items())})
_UNARY = {"-": "neg", "~": "invert", "not": "unot"}  # unary + has no builtin


def builtins_used(source: str) -> list[str]:
    """``wp.*`` functions called in function bodies (not signatures or annotations) plus operator builtins."""
    found: set[str] = set()
    body_levels: list[int] = []  # indentation depths of the function bodies we are in
    level = 0
    in_header = False  # a ``def`` line up to its NEWLINE: parameters and annotations, not body
    pending_def = False  # the next INDENT opens a function body
    window: list[str] = ["", "", ""]  # the three tokens before this one
    operand_end = False  # the previous token ends an operand, so + - are binary
    for kind, text in tokens(source):
        if kind == "indent":
            level += 1
            if pending_def:
                body_levels.append(level)
                pending_def = False
            continue
        if kind == "dedent":
            level -= 1
            while body_levels and body_levels[-1] > level:
                body_levels.pop()
            continue
        if kind == "newline":
            if in_header:
                in_header, pending_def = False, True
            window, operand_end = ["", "", ""], False
            continue
        if kind == "name" and text == "def":
            in_header = True
        elif body_levels and not in_header:
            if text == "(" and window == ["wp", ".", window[2]] and window[2].isidentifier():
                found.add(window[2])
            elif operand_end and kind == "op":
                found.add(_BINARY.get(text, ""))  # a line-leading @ (a decorator) never follows an operand
            elif not operand_end:
                found.add(_UNARY.get(text, ""))
        window = [window[1], window[2], text]
        operand_end = kind in ("number", "string") or text in (")", "]", "}") or (
            kind == "name" and (not keyword.iskeyword(text) or text in ("True", "False", "None")))
    found.discard("")
    return sorted(found)
