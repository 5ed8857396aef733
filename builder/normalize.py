"""Program shape and builtin usage, read from the Python source.

The normalized form replaces identifiers (not Warp's own ``wp.*`` names or
Python keywords) by their order of first appearance and every literal by
``N``; two programs with the same normalized form teach the same thing, so
the split assignment and the duplicate checks key on its hash.
"""

from __future__ import annotations

import ast
import hashlib
import keyword
import re

_OPERATORS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div", ast.FloorDiv: "floordiv",
              ast.Mod: "mod", ast.MatMult: "mul", ast.BitAnd: "bit_and", ast.BitOr: "bit_or",
              ast.BitXor: "bit_xor", ast.LShift: "lshift", ast.RShift: "rshift", ast.USub: "neg",
              ast.Not: "unot", ast.Pow: "pow", ast.Invert: "invert"}
_KEEP = {"wp", "range", "float", "int", "True", "False", "None"}


# One regular-expression pass over the source instead of the tokenize module, which dominated the cost of
# drawing a row (every row draws about three candidates and hashes each). It gives the token strings tokenize
# gives for the code the generator writes: INDENT as its whitespace, DEDENT and ENDMARKER as "", no NL or
# COMMENT tokens. tests/test_generator.py checks the two agree over many generated programs.
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


def normalized(source: str) -> str:
    names: dict[str, str] = {}
    out: list[str] = []
    indents = [""]
    depth = 0
    lead = ""  # indentation of the current line, applied at its first token
    at_line_start = True
    prev = ""
    for m in _TOKEN.finditer("\n" + source):
        kind, text = m.lastgroup, m.group()
        if kind == "newline":
            if depth == 0:
                if not at_line_start:
                    out.append("\n")
                at_line_start = True
                lead = text.lstrip("\r\n")
            continue
        if kind in ("space", "comment"):
            continue
        if kind == "error":
            raise ValueError(f"cannot tokenize {text!r} in a generated program")
        if at_line_start:
            if len(lead) > len(indents[-1]):
                indents.append(lead)
                out.append(lead)
            while len(lead) < len(indents[-1]):
                indents.pop()
                out.append("")
            at_line_start = False
        raw = text
        if kind == "name":
            if text not in _KEEP and prev != "." and not keyword.iskeyword(text):
                text = names.setdefault(text, f"v{len(names)}")
        elif kind == "number":
            text = "N"
        elif kind == "op" and text in ("(", "[", "{"):
            depth += 1
        elif kind == "op" and text in (")", "]", "}"):
            depth -= 1
        out.append(text)
        prev = raw
    if not at_line_start:
        out.append("\n")
    out.extend("" for _ in indents)  # DEDENTs, then ENDMARKER
    return " ".join(out)


def normalized_sha256(source: str) -> str:
    return hashlib.sha256(normalized(source).encode()).hexdigest()


def builtins_used(source: str) -> list[str]:
    """``wp.*`` functions called in function bodies (not annotations) plus operator builtins."""
    found: set[str] = set()
    for fn in ast.walk(ast.parse(source)):
        if not isinstance(fn, ast.FunctionDef):
            continue
        for node in (n for stmt in fn.body for n in ast.walk(stmt)):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "wp":
                found.add(node.func.attr)
            elif isinstance(node, (ast.BinOp, ast.AugAssign)):
                found.add(_OPERATORS.get(type(node.op), ""))
            elif isinstance(node, ast.UnaryOp):
                found.add(_OPERATORS.get(type(node.op), ""))
    found.discard("")
    return sorted(found)
