"""Warp features a program uses, one yes/no each, and its builtin calls and expression depths.

Features (over the Warp functions of one program: a kernel and the helper functions it calls):

- ``array_subscript_annotation`` / ``array_call_annotation``: a parameter annotated ``wp.array[T]`` (any array
  kind: ``array2d``, ``indexedarray``, ...) / ``wp.array(dtype=T)``.
- ``kernel_decorator_args``: ``@wp.kernel(...)`` called with arguments.
- ``tile``: a ``tile_*`` call. ``atomic``: an ``atomic_*`` call. ``static``: ``wp.static(...)``.
- ``constant``: reads a name the module binds to ``wp.constant(...)``, or calls it.
- ``generic_any``: a parameter annotated ``Any``. ``func_overload``: a helper whose name the module defines as a
  Warp function more than once. ``helper_func``: calls a module ``@wp.func``. ``struct``: names a ``@wp.struct``.
- ``geometry_query``: a ``mesh_*``, ``bvh_*``, ``hash_grid_*`` or ``volume_*`` call.
- ``early_return``: a ``return`` in the kernel itself. ``loop``: ``for``/``while``. ``branch``: ``if``.
- ``small_types``: names ``float16``/``half``/``int8``/``int16``/``uint8``/``uint16``.

Expression depth: a name, a literal (negated or not) or a dotted module name (``wp.pi``) is 1; any other
expression is 1 + the depth of its deepest operand (a call's operands are its arguments, not its callee).
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from builder.analysis.kernels import WARP_MODULES, decorator_kind, own_nodes

FEATURES: tuple[str, ...] = (
    "array_subscript_annotation",
    "array_call_annotation",
    "kernel_decorator_args",
    "tile",
    "atomic",
    "static",
    "constant",
    "generic_any",
    "func_overload",
    "helper_func",
    "struct",
    "geometry_query",
    "early_return",
    "loop",
    "branch",
    "small_types",
)

ARRAY_KINDS = frozenset({"array", "array1d", "array2d", "array3d", "array4d", "indexedarray", "fabricarray"})
GEOMETRY_PREFIXES = ("mesh_", "bvh_", "hash_grid_", "volume_")
SMALL_TYPES = frozenset({"float16", "half", "int8", "int16", "uint8", "uint16"})


@dataclass(frozen=True)
class ModuleFacts:
    """What a program's features refer to beyond its functions: the module's constants, structs and overloads."""

    constants: frozenset[str]
    structs: frozenset[str]
    overloaded: frozenset[str]  # Warp function names defined more than once

    @classmethod
    def of(cls, tree: ast.Module, function_names: Sequence[str]) -> ModuleFacts:
        constants = {
            t.id
            for node in tree.body
            if isinstance(node, ast.Assign) and _warp_call(node.value) == "constant"
            for t in node.targets
            if isinstance(t, ast.Name)
        }
        structs = {
            node.name
            for node in ast.walk(tree)
            if isinstance(node, ast.ClassDef) and any(_attr(d) == "struct" for d in node.decorator_list)
        }
        overloaded = {name for name, n in Counter(function_names).items() if n > 1}
        return cls(frozenset(constants), frozenset(structs), frozenset(overloaded))


def _attr(node: ast.AST) -> str | None:
    node = node.func if isinstance(node, ast.Call) else node
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else None


def _warp_call(node: ast.AST) -> str | None:
    """``wp.sin(x)`` -> "sin"; calls not on the ``wp``/``warp`` module -> None."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        owner = node.func.value
        if isinstance(owner, ast.Name) and owner.id in WARP_MODULES:
            return node.func.attr
    return None


def builtin_calls(functions: Sequence[ast.FunctionDef]) -> Counter[str]:
    """How often each ``wp.<name>(...)`` builtin is called in these functions' bodies."""
    return Counter(name for fn in functions for node in own_nodes(fn) if (name := _warp_call(node)) is not None)


def _is_literal(node: ast.AST) -> bool:
    while isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    return isinstance(node, ast.Constant)


def _is_dotted(node: ast.AST) -> bool:
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name) and node.id in WARP_MODULES


def depth(node: ast.AST) -> int:
    if isinstance(node, ast.Name) or _is_literal(node) or _is_dotted(node):
        return 1
    if isinstance(node, ast.Call):
        operands = [*node.args, *(k.value for k in node.keywords)]
    else:
        operands = [c for c in ast.iter_child_nodes(node) if isinstance(c, ast.expr)]
    return 1 + max((depth(c) for c in operands), default=0)


def rhs_depths(functions: Sequence[ast.FunctionDef]) -> list[int]:
    """The depth of every assigned or stored value (``x = e``, ``a[i] += e``) in these functions."""
    return [
        depth(node.value)
        for fn in functions
        for node in own_nodes(fn)
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and node.value is not None
    ]


def _annotation_kinds(fn: ast.FunctionDef) -> set[str]:
    found = set()
    for arg in [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]:
        ann = arg.annotation
        if isinstance(ann, ast.Subscript) and _attr(ann.value) in ARRAY_KINDS:
            found.add("array_subscript_annotation")
        elif isinstance(ann, ast.Call) and _attr(ann) in ARRAY_KINDS:
            found.add("array_call_annotation")
        elif ann is not None and _attr(ann) == "Any":
            found.add("generic_any")
    return found


def features(kernel: ast.FunctionDef, helpers: Sequence[ast.FunctionDef], facts: ModuleFacts) -> frozenset[str]:
    """The names (from ``FEATURES``) of the features a kernel and its helper functions use."""
    functions = [kernel, *helpers]
    found: set[str] = set()
    for fn in functions:
        found |= _annotation_kinds(fn)
    if any(isinstance(d, ast.Call) and decorator_kind(d) == "kernel" for d in kernel.decorator_list):
        found.add("kernel_decorator_args")
    if helpers:
        found.add("helper_func")
    if any(h.name in facts.overloaded for h in helpers):
        found.add("func_overload")
    if any(isinstance(n, ast.Return) for n in own_nodes(kernel)):
        found.add("early_return")
    for fn in functions:
        annotations = [a.annotation for a in fn.args.args if a.annotation is not None]
        for node in [*own_nodes(fn), *(n for a in annotations for n in ast.walk(a))]:
            found |= _node_features(node, facts)
    return frozenset(found)


def _node_features(node: ast.AST, facts: ModuleFacts) -> set[str]:
    found = set()
    if isinstance(node, ast.Call) and (name := _attr(node)) is not None:
        if name.startswith("tile_"):
            found.add("tile")
        if name.startswith("atomic_"):
            found.add("atomic")
        if name.startswith(GEOMETRY_PREFIXES):
            found.add("geometry_query")
        if _warp_call(node) == "static":
            found.add("static")
        if _warp_call(node) == "constant":
            found.add("constant")
    elif isinstance(node, (ast.For, ast.While)):
        found.add("loop")
    elif isinstance(node, ast.If):
        found.add("branch")
    elif isinstance(node, ast.Name):
        if node.id in facts.constants:
            found.add("constant")
        if node.id in facts.structs:
            found.add("struct")
        if node.id in SMALL_TYPES:
            found.add("small_types")
    elif isinstance(node, ast.Attribute) and node.attr in SMALL_TYPES:
        found.add("small_types")
    return found
