"""What a shipped module's source says about its kernels without importing it: the ``block_dim`` it launches a tile
kernel with (Warp learns it only at launch), the kernels only a factory makes (defined inside a function), and how
many thread indices a kernel takes (the shape of the launches it is run with, ``trial_size``).
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


# threads per launch dimension of a shipped kernel's trials (its launch size is not recorded); every array
# argument gets the trial's size in each of its dimensions, so a thread's own element always exists
_TRIAL_SIZES = {1: 16, 2: 8, 3: 4, 4: 3}


def trial_size(ndim: int) -> int:
    """Threads per dimension of a trial launch over ``ndim`` dimensions (a written kernel's, in the evaluator and
    in a derived row's execution)."""
    return _TRIAL_SIZES.get(ndim, 2)


def launch_ndim(source: str, kernel_name: str) -> int:
    """How many thread indices the kernel unpacks from ``wp.tid()`` (1 when it takes one or none)."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef) and node.name == kernel_name:
            for sub in ast.walk(node):
                if isinstance(sub, ast.Assign) and _is_tid(sub.value) and isinstance(sub.targets[0], ast.Tuple):
                    return len(sub.targets[0].elts)
    return 1


def _is_tid(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "tid"
