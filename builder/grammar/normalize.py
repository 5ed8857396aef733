"""Program shape and builtin usage, read from the Python source.

The normalized form replaces identifiers (not Warp's own ``wp.*`` names or
Python keywords) by their order of first appearance and every number by
``N``, and leaves docstrings and trailing commas out; two programs with the
same normalized form teach the same thing, so the split assignment and the
duplicate checks key on its hash.
"""

from __future__ import annotations

import hashlib
import keyword
import re

_KEEP = {"wp", "range", "float", "int", "True", "False", "None"}

# One regular-expression pass over the source instead of the tokenize and ast modules, which dominated the
# cost of drawing a row. For the code the generator writes it gives the tokens tokenize gives;
# tests/test_generator.py checks both functions below against tokenize / ast versions over many generated
# programs. The pattern has no groups: findall returns plain strings and a token's first character says its
# kind, which is cheaper than asking each match for its group name.
_TOKEN = re.compile(
    r"""
    \r?\n[ \t\f]*                                                              # newline and the next indent
  | 0[xXoObB][\da-fA-F_]+|(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][-+]?\d[\d_]*)?[jJ]?  # number
  | [rRbBuUfF]{0,2}(?:\"\"\"(?:[^"\\]|\\.|"(?!""))*\"\"\"|\'\'\'(?:[^'\\]|\\.|'(?!''))*\'\'\')  # triple-quoted
  | [rRbBuUfF]{0,2}(?:'[^'\\\n]*(?:\\.[^'\\\n]*)*'|"[^"\\\n]*(?:\\.[^"\\\n]*)*")   # string
  | [^\W\d]\w*                                                                 # name
  | \*\*=|//=|>>=|<<=|->|:=|\.\.\.|[-+*/%&|^@<>=!:]=|\*\*|//|<<|>>|[-+*/%&|^~<>=()\[\]{}:,.;@]  # op
  | [ \t\f]+|\\\r?\n                                                          # space, line continuation
  | \#[^\r\n]*                                                                 # comment
  | .                                                                          # anything else: an error
""",
    re.VERBOSE,
)
_OP_CHARS = frozenset("-+*/%&|^~<>=()[]{}:,.;@")


class _Tokenizer:
    """The layout state of a token pass, so a source can be fed in pieces and a pass forked (``copy``).

    A piece must end where a line ends (before its ``\\n``), so no token straddles two pieces.
    """

    __slots__ = ("indents", "depth", "lead", "at_line_start", "started")

    def __init__(self) -> None:
        self.indents = [""]
        self.depth = 0  # inside brackets a line break is not a NEWLINE and indentation does not count
        self.lead, self.at_line_start, self.started = "", True, False

    def copy(self) -> _Tokenizer:
        t = _Tokenizer.__new__(_Tokenizer)
        t.indents, t.depth, t.lead = list(self.indents), self.depth, self.lead
        t.at_line_start, t.started = self.at_line_start, self.started
        return t

    def feed(self, piece: str) -> list[tuple[str, str]]:
        if not self.started:
            piece, self.started = "\n" + piece, True
        indents, depth, lead, at_line_start = self.indents, self.depth, self.lead, self.at_line_start
        out: list[tuple[str, str]] = []
        for text in _TOKEN.findall(piece):
            c = text[0]
            if c == "\n" or c == "\r":
                if depth == 0:
                    if not at_line_start:
                        out.append(("newline", "\n"))
                    at_line_start, lead = True, text.lstrip("\r\n")
                continue
            if c in " \t\f#\\":  # space, comment, line continuation
                continue
            if c == "_" or c.isalpha():
                kind = "string" if text[-1] in "'\"" else "name"  # a prefixed string starts with a letter
            elif c.isdigit() or (c == "." and len(text) > 1 and text[1].isdigit()):
                kind = "number"
            elif c in "'\"":
                kind = "string"
            elif len(text) > 1 or c in _OP_CHARS:
                kind = "op"
                if c in "([{":
                    depth += 1
                elif c in ")]}":
                    depth -= 1
            else:
                raise ValueError(f"cannot tokenize {text!r} in a generated program")
            if at_line_start:
                if len(lead) > len(indents[-1]):
                    indents.append(lead)
                    out.append(("indent", lead))
                while len(lead) < len(indents[-1]):
                    indents.pop()
                    out.append(("dedent", ""))
                at_line_start = False
            out.append((kind, text))
        self.depth, self.lead, self.at_line_start = depth, lead, at_line_start
        return out

    def close(self) -> list[tuple[str, str]]:
        out = [] if self.at_line_start else [("newline", "\n")]
        out += [("dedent", "")] * (len(self.indents) - 1)
        out.append(("end", ""))
        return out


def tokens(source: str) -> list[tuple[str, str]]:
    """``(kind, text)`` pairs as tokenize orders them, without NL and COMMENT tokens.

    Kinds: name, number, string, op, and the layout kinds newline ("\\n"), indent (its whitespace),
    dedent ("") and end ("").
    """
    t = _Tokenizer()
    return t.feed(source) + t.close()


class Normalizer:
    """The normalized form's SHA-256, computed piece by piece.

    Drawing a row tries several endings of one program (grammar.sample): the shared beginning is
    tokenized and hashed once, and each ending is fed to a ``copy``. Feeding a source in pieces gives the
    same digest as ``normalized_sha256`` of the whole (tests/test_generator.py checks it).
    """

    __slots__ = ("_tok", "_toks", "_names", "_prev", "_sha", "_sep")

    def __init__(self) -> None:
        self._tok, self._toks, self._names, self._prev = _Tokenizer(), [], {}, ""
        self._sha, self._sep = hashlib.sha256(), ""

    def copy(self) -> Normalizer:
        n = Normalizer.__new__(Normalizer)
        n._tok, n._toks, n._names, n._prev = self._tok.copy(), list(self._toks), dict(self._names), self._prev
        n._sha, n._sep = self._sha.copy(), self._sep
        return n

    def feed(self, text: str) -> Normalizer:
        self._add(self._tok.feed(text))
        return self

    def hexdigest(self) -> str:
        done = self.copy()
        done._add(done._tok.close())
        return done._sha.hexdigest()

    def tokens(self) -> list[tuple[str, str]]:
        """What ``tokens`` gives for everything fed so far, as if it ended here (no second pass needed)."""
        return self._toks + self._tok.copy().close()

    def _add(self, toks: list[tuple[str, str]]) -> None:
        self._toks += toks
        out, self._prev = _normalize(toks, self._names, self._prev)
        if out:
            self._sha.update((self._sep + " ".join(out)).encode())
            self._sep = " "


def _normalize(
    toks: list[tuple[str, str]], names: dict[str, str], prev: str, identifiers: str = "order"
) -> tuple[list[str], str]:
    """Identifiers (not ``wp``, builtins or attributes) to ``v0, v1, ...`` by first appearance (``identifiers``
    "order"), kept as written ("keep") or all one class token ``ID`` ("class"); numbers to N.

    Layout is left out, so how a program is written out (``style``) cannot move it to another split: a string that
    is a whole statement (a docstring) with its NEWLINE, and a comma right before a closing bracket (the trailing
    comma of a signature written a parameter per line). Both are seen within one list of tokens; the generator
    feeds a program whole, and a docstring never ends a piece.
    """
    out: list[str] = []
    drop_newline = False
    for n, (kind, text) in enumerate(toks):
        if drop_newline:
            drop_newline, prev = False, text
            continue
        after = toks[n + 1] if n + 1 < len(toks) else ("", "")
        if kind == "string" and (prev == "" or prev.isspace()) and after[0] == "newline":
            drop_newline, prev = True, text  # a docstring: this token and its NEWLINE
            continue
        if text == "," and after[1] in (")", "]"):
            prev = text
            continue
        raw = text
        if kind == "name" and text not in _KEEP and prev != "." and not keyword.iskeyword(text):
            if identifiers == "order":
                text = names.setdefault(text, f"v{len(names)}")
            elif identifiers == "class":
                text = "ID"
        elif kind == "number":
            text = "N"
        out.append(text)
        prev = raw
    return out, prev


def normalized(source: str) -> str:
    return " ".join(_normalize(tokens(source), {}, "")[0])


def normalized_sha256(source: str) -> str:
    return Normalizer().feed(source).hexdigest()


# Warp's builtin names for Python's operators: binary and augmented (``-`` and ``-=`` are both "sub"), unary.
_BINARY = {
    "+": "add",
    "-": "sub",
    "*": "mul",
    "/": "div",
    "//": "floordiv",
    "%": "mod",
    "@": "mul",
    "&": "bit_and",
    "|": "bit_or",
    "^": "bit_xor",
    "<<": "lshift",
    ">>": "rshift",
    "**": "pow",
}
_BINARY.update({op + "=": name for op, name in list(_BINARY.items())})
_UNARY = {"-": "neg", "~": "invert", "not": "unot"}  # unary + has no builtin


def builtins_used(source: str) -> list[str]:
    """``wp.*`` functions called in function bodies (not signatures or annotations) plus operator builtins."""
    return builtins_in(tokens(source))


def builtins_in(toks: list[tuple[str, str]]) -> list[str]:
    """``builtins_used`` of the source whose ``tokens`` these are."""
    found: set[str] = set()
    body_levels: list[int] = []  # indentation depths of the function bodies we are in
    level = 0
    in_header = False  # a ``def`` line up to its NEWLINE: parameters and annotations, not body
    pending_def = False  # the next INDENT opens a function body
    window: list[str] = ["", "", ""]  # the three tokens before this one
    operand_end = False  # the previous token ends an operand, so + - are binary
    for kind, text in toks:
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
        operand_end = (
            kind in ("number", "string")
            or text in (")", "]", "}")
            or (kind == "name" and (not keyword.iskeyword(text) or text in ("True", "False", "None")))
        )
    found.discard("")
    return sorted(found)
