"""Habits: code patterns a generator falls into and real Warp kernels rarely show, one yes/no per program.

Each detector looks at the Warp functions of one program (a kernel and the helper functions it calls):

- ``float_index_filler``: ``float(i) * c`` (or ``wp.float32(i)``/``wp.float64(i)``, either operand order) with
  ``i`` bound to ``wp.tid()`` and ``c`` a numeric literal of magnitude below 1: a value made from the thread index.
- ``neighbour_clamp_index``: a subscript index (or one of its indices) that is ``wp.max(e - k, b)`` or
  ``wp.min(e + k, b)`` with ``k`` an integer literal: a clamped neighbour read.
- ``over_parenthesised``: a one-line right-hand side (assignment, store or return value) wrapped entirely in
  parentheses, or a doubly parenthesised group ``((e))`` anywhere in one (see ``parens``).
- ``redundant_parens``: a right-hand side with a grouping pair that changes nothing (``(a * b) + c``), the
  broader count of the two (see ``parens``).
- ``double_negative``: ``- -e``/``-(-e)`` (a negation of a negation, literals included) or ``a - -e``.
- ``equal_bound_clamp``: ``wp.clamp(x, a, b)`` with ``a`` and ``b`` the same expression.
- ``shape_use``: reads an ``.shape`` attribute.
- ``weighted_mixing_term``: a store into an array parameter (``a[i] = e``/``a[i] += e``) whose value is
  ``<expression> + <expression> * <literal>``, the literal numeric or a Warp scalar cast of one
  (``wp.float64(0.37)``): a per-thread term with a constant weight mixed into the output.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence

from builder.analysis.kernels import own_nodes, param_names
from builder.analysis.parens import paren_habits

HABITS: tuple[str, ...] = (
    "float_index_filler",
    "neighbour_clamp_index",
    "over_parenthesised",
    "redundant_parens",
    "double_negative",
    "equal_bound_clamp",
    "shape_use",
    "weighted_mixing_term",
)

FLOAT_CASTS = frozenset({"float", "float16", "float32", "float64"})
SCALAR_CASTS = FLOAT_CASTS | frozenset({"int", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32"})


def _nodes(functions: Sequence[ast.FunctionDef]) -> Iterator[ast.AST]:
    for fn in functions:
        yield from own_nodes(fn)


def call_name(node: ast.AST) -> str | None:
    """``wp.max(...)``/``max(...)`` -> "max"; anything else -> None."""
    if not isinstance(node, ast.Call):
        return None
    if isinstance(node.func, ast.Attribute):
        return node.func.attr
    if isinstance(node.func, ast.Name):
        return node.func.id
    return None


def literal(node: ast.AST) -> float | None:
    """The value of a numeric literal, a negated one, or a Warp scalar cast of one; None otherwise."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        inner = literal(node.operand)
        return None if inner is None else (-inner if isinstance(node.op, ast.USub) else inner)
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return float(node.value)
    if call_name(node) in SCALAR_CASTS and len(node.args) == 1 and not node.keywords:
        return literal(node.args[0])
    return None


def thread_indices(functions: Sequence[ast.FunctionDef]) -> frozenset[str]:
    names: set[str] = set()
    for node in _nodes(functions):
        if isinstance(node, ast.Assign) and call_name(node.value) == "tid":
            for target in node.targets:
                elts = target.elts if isinstance(target, ast.Tuple) else [target]
                names.update(e.id for e in elts if isinstance(e, ast.Name))
    return frozenset(names)


def _float_index_filler(node: ast.AST, tids: frozenset[str]) -> bool:
    if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult)):
        return False
    for cast, const in ((node.left, node.right), (node.right, node.left)):
        value = literal(const)
        if value is None or not 0 < abs(value) < 1:
            continue
        if call_name(cast) in FLOAT_CASTS and len(cast.args) == 1:
            arg = cast.args[0]
            if isinstance(arg, ast.Name) and arg.id in tids:
                return True
    return False


def _clamped_neighbour(node: ast.AST) -> bool:
    name = call_name(node)
    if name not in ("max", "min") or len(node.args) != 2:
        return False
    step = ast.Sub if name == "max" else ast.Add
    for arg in node.args:
        if isinstance(arg, ast.BinOp) and isinstance(arg.op, step):
            if isinstance(arg.right, ast.Constant) and type(arg.right.value) is int:
                return True
    return False


def _neighbour_clamp_index(node: ast.AST) -> bool:
    if not isinstance(node, ast.Subscript):
        return False
    index = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    return any(_clamped_neighbour(i) for i in index)


def _double_negative(node: ast.AST) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = node.operand
        return isinstance(inner, ast.UnaryOp) and isinstance(inner.op, ast.USub)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub):
        return isinstance(node.right, ast.UnaryOp) and isinstance(node.right.op, ast.USub)
    return False


def _equal_bound_clamp(node: ast.AST) -> bool:
    if call_name(node) != "clamp" or len(node.args) != 3:
        return False
    return ast.dump(node.args[1]) == ast.dump(node.args[2])


def _weighted_mixing_term(node: ast.AST, params: frozenset[str]) -> bool:
    if not isinstance(node, (ast.Assign, ast.AugAssign)):
        return False
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    stores = [t.value for t in targets if isinstance(t, ast.Subscript)]
    if not any(isinstance(a, ast.Name) and a.id in params for a in stores):
        return False
    value = node.value
    if not (isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add)):
        return False
    term = value.right
    if not (isinstance(term, ast.BinOp) and isinstance(term.op, ast.Mult)):
        return False
    return literal(term.right) is not None and literal(term.left) is None and literal(value.left) is None


def habits(functions: Sequence[ast.FunctionDef], lines: Sequence[str]) -> frozenset[str]:
    """The names (from ``HABITS``) of the habits these functions show; ``lines`` is their module's source lines."""
    tids = thread_indices(functions)
    params = frozenset(p for fn in functions for p in param_names(fn))
    found: set[str] = set()
    for node in _nodes(functions):
        if _float_index_filler(node, tids):
            found.add("float_index_filler")
        if _neighbour_clamp_index(node):
            found.add("neighbour_clamp_index")
        if _double_negative(node):
            found.add("double_negative")
        if _equal_bound_clamp(node):
            found.add("equal_bound_clamp")
        if isinstance(node, ast.Attribute) and node.attr == "shape":
            found.add("shape_use")
        if _weighted_mixing_term(node, params):
            found.add("weighted_mixing_term")
    for fn in functions:
        found |= paren_habits(fn, lines)
    return frozenset(found)
