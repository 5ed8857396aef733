"""Finding the Warp kernels and functions in a module's syntax tree.

A function counts when a decorator names ``kernel``, ``func``, ``func_grad`` or ``func_replay`` on the ``wp`` or
``warp`` module (bare, or called with arguments: ``@wp.kernel(enable_backward=False)``), or is one of the ``fem``
cache's ``dynamic_kernel``/``dynamic_func`` wrappers (real Warp functions built at run time). ``@wp.func_native``
is left out: its body is a CUDA snippet, not Python. Nested definitions count too (the Warp package defines many
kernels inside factory functions).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

WARP_MODULES = frozenset({"wp", "warp"})
WARP_DECORATORS = frozenset({"kernel", "func", "func_grad", "func_replay"})
DYNAMIC_DECORATORS = frozenset({"dynamic_kernel", "dynamic_func"})
KERNEL_DECORATORS = frozenset({"kernel", "dynamic_kernel"})


def _dotted(node: ast.expr) -> tuple[str, ...]:
    """``wp.kernel`` -> ("wp", "kernel"); anything that is not a plain dotted name -> ()."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return ()
    parts.append(node.id)
    return tuple(reversed(parts))


def decorator_kind(decorator: ast.expr) -> str | None:
    """The Warp decorator name (``kernel``, ``func``, ...) or None when the decorator is not a Warp one."""
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    dotted = _dotted(target)
    if not dotted:
        return None
    if dotted[-1] in DYNAMIC_DECORATORS:
        return dotted[-1]
    if len(dotted) >= 2 and dotted[0] in WARP_MODULES and dotted[-1] in WARP_DECORATORS:
        return dotted[-1]
    return None


def warp_kind(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    for dec in fn.decorator_list:
        kind = decorator_kind(dec)
        if kind is not None:
            return kind
    return None


def warp_functions(tree: ast.AST) -> Iterator[tuple[ast.FunctionDef, str]]:
    """Every Warp kernel/function in the tree with its decorator kind, in source order."""
    found = [
        (node, kind)
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef) and (kind := warp_kind(node)) is not None
    ]
    found.sort(key=lambda pair: (pair[0].lineno, pair[0].col_offset))
    yield from found


def own_nodes(fn: ast.FunctionDef) -> Iterator[ast.AST]:
    """The function body's nodes without those of nested function or class definitions."""
    stack: list[ast.AST] = list(fn.body)
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                stack.append(child)


def is_kernel(kind: str) -> bool:
    return kind in KERNEL_DECORATORS


def is_stub(fn: ast.FunctionDef) -> bool:
    """A body of only a docstring, ``...`` or ``pass``: a declaration (overload, native), nothing to analyse."""
    for stmt in fn.body:
        if isinstance(stmt, ast.Pass):
            continue
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            continue  # docstring or Ellipsis
        return False
    return True


def param_names(fn: ast.FunctionDef) -> tuple[str, ...]:
    args = fn.args
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    if args.vararg is not None:
        every.append(args.vararg)
    if args.kwarg is not None:
        every.append(args.kwarg)
    return tuple(a.arg for a in every)
