"""Program shape and builtin usage, read from the Python source.

The normalized form replaces identifiers (not Warp's own ``wp.*`` names or
Python keywords) by their order of first appearance and every literal by
``N``; two programs with the same normalized form teach the same thing, so
the split assignment and the duplicate checks key on its hash.
"""

from __future__ import annotations

import ast
import hashlib
import io
import keyword
import tokenize

_OPERATORS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div", ast.FloorDiv: "floordiv",
              ast.Mod: "mod", ast.MatMult: "mul", ast.BitAnd: "bit_and", ast.BitOr: "bit_or",
              ast.BitXor: "bit_xor", ast.LShift: "lshift", ast.RShift: "rshift", ast.USub: "neg",
              ast.Not: "unot", ast.Pow: "pow", ast.Invert: "invert"}
_KEEP = {"wp", "range", "float", "int", "True", "False", "None"}


def normalized(source: str) -> str:
    names: dict[str, str] = {}
    out: list[str] = []
    prev = ""
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type in (tokenize.COMMENT, tokenize.NL, tokenize.ENCODING):
            continue
        text = tok.string
        if tok.type == tokenize.NAME and not keyword.iskeyword(text) and text not in _KEEP and prev != ".":
            text = names.setdefault(text, f"v{len(names)}")
        elif tok.type == tokenize.NUMBER:
            text = "N"
        elif tok.type == tokenize.NEWLINE:
            text = "\n"
        out.append(text)
        prev = tok.string
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
