"""What a shipped module's source says about its kernels without importing it: the ``block_dim`` it launches a tile
kernel with (Warp learns it only at launch), and the kernels only a factory makes (defined inside a function).
"""

from __future__ import annotations

import ast
from functools import lru_cache

from builder.shipped.extract import decorator_names, syntax_tree


def block_dim_in_source(module_source: str, kernel_name: str) -> int | None:
    """The ``block_dim`` the module launches ``kernel_name`` with, when it says so with a constant.

    Tile kernels are specialised for their block size; Warp only learns it at launch. Reads
    ``wp.launch[_tiled](kernel_name, ..., block_dim=X)`` (also ``kernel=kernel_name``) where ``X`` is a literal or a
    top-level name bound to one; the first such launch in the file wins.
    """
    return _block_dims(module_source).get(kernel_name)


@lru_cache(maxsize=4)
def _block_dims(module_source: str) -> dict[str, int]:
    """``block_dim_in_source`` for every kernel name of a module at once: one walk of its tree, not one per kernel."""
    try:
        tree = syntax_tree(module_source)
    except SyntaxError:
        return {}
    constants = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            constants[stmt.targets[0].id] = stmt.value
    found: dict[str, int] = {}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and getattr(node.func, "attr", "") in ("launch", "launch_tiled")):
            continue
        kw = {k.arg: k.value for k in node.keywords if k.arg}
        target = node.args[0] if node.args else kw.get("kernel")
        if not isinstance(target, ast.Name) or target.id in found or "block_dim" not in kw:
            continue
        value = _constant_int(kw["block_dim"], constants, depth=3)
        if value is not None:
            found[target.id] = value
    return found


def _constant_int(node: ast.expr, constants: dict[str, ast.expr], depth: int) -> int | None:
    if isinstance(node, ast.Name) and node.id in constants and depth > 0:
        return _constant_int(constants[node.id], constants, depth - 1)
    if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "constant" and node.args:
        return _constant_int(node.args[0], constants, depth)
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, RecursionError):
        return None
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def nested_kernel_defs(module_source: str) -> list[str]:
    """The names of ``@wp.kernel`` functions defined inside another function of a module: a factory's kernels (or
    a test's), which exist only once that function runs, so importing the module does not make them."""
    try:
        tree = syntax_tree(module_source)
    except SyntaxError:
        return []
    nested: dict[int, ast.FunctionDef] = {}
    for outer in ast.walk(tree):
        if not isinstance(outer, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(outer):
            if node is not outer and isinstance(node, ast.FunctionDef) and "kernel" in decorator_names(node):
                nested[id(node)] = node
    return [n.name for n in sorted(nested.values(), key=lambda n: n.lineno)]
