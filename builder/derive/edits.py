"""Text edits at syntax-tree positions, so a transformation changes only what it means to and the rest of a written
kernel (comments, layout, quotes) stays as its author wrote it: Warp copies source lines into the code it emits.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass


@dataclass(frozen=True)
class Edit:
    start: int  # character offsets into the source
    end: int
    text: str


class Source:
    """A source, its syntax tree, and the character offset of any (line, UTF-8 column) the tree names."""

    def __init__(self, text: str):
        self.text = text
        self.tree = ast.parse(text)
        self.lines = text.splitlines(True)
        self._starts = [0]
        for line in self.lines:
            self._starts.append(self._starts[-1] + len(line))

    def offset(self, lineno: int, col: int) -> int:
        line = self.lines[lineno - 1]
        return self._starts[lineno - 1] + len(line.encode("utf-8")[:col].decode("utf-8", errors="replace"))

    def span(self, node: ast.AST) -> tuple[int, int]:
        return self.offset(node.lineno, node.col_offset), self.offset(node.end_lineno, node.end_col_offset)

    def segment(self, node: ast.AST) -> str:
        a, b = self.span(node)
        return self.text[a:b]

    def line_span(self, node: ast.stmt) -> tuple[int, int]:
        """The whole lines a statement fills (its line breaks included)."""
        return self._starts[node.lineno - 1], self._starts[node.end_lineno]

    def apply(self, edits: list[Edit]) -> str:
        """The source with ``edits`` made (they must not overlap)."""
        out, last = [], len(self.text)
        for e in sorted(edits, key=lambda e: (e.start, e.end), reverse=True):
            if e.end > last:
                raise ValueError(f"overlapping edits at {e.start}-{e.end}")
            out.append(self.text[e.end : last])
            out.append(e.text)
            last = e.start
        out.append(self.text[:last])
        return "".join(reversed(out))


def kernel_def(tree: ast.Module, kernel_name: str) -> ast.FunctionDef | None:
    """The row's kernel: the top-level def named ``kernel_name``, else the last one decorated as a kernel."""
    defs = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    named = [n for n in defs if n.name == kernel_name]
    return (named or [n for n in defs if any(decorator_name(d) == "kernel" for d in n.decorator_list)] or [None])[-1]


def decorator_name(node: ast.expr) -> str:
    node = node.func if isinstance(node, ast.Call) else node
    return node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")


def wp_call(node: ast.AST) -> str:
    """``X`` for a call ``wp.X(...)``, else ""."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        if isinstance(node.func.value, ast.Name) and node.func.value.id == "wp":
            return node.func.attr
    return ""


def names_in(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
