"""A shipped kernel's stand-alone source: the kernel and the top-level code it needs, in source order.

Pure Python over the module's syntax tree: starting from the kernel's ``def``, take every top-level definition
whose name it reads (``@wp.func``/``@wp.struct``, ``wp.constant``s and other assignments, imports, plain helper
functions), transitively; then the ``@wp.func_grad``/``@wp.func_replay`` definitions and ``wp.overload(...)``
declarations attached to what was taken. ``import warp as wp`` always comes first.
"""

from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass, field
from functools import lru_cache

from builder.errors import ExtractError

_BUILTINS = frozenset(dir(builtins))
_ATTACHED = ("func_grad", "func_replay", "overload")
PRELUDE = "import warp as wp\n"


@dataclass(frozen=True)
class Extracted:
    source: str  # stand-alone Python
    unresolved: tuple[str, ...]  # names the kernel reads that no top-level statement defines (sorted)
    nested: bool  # the kernel is defined inside a function or class, not at the top level


def _bound(stmt: ast.stmt) -> set[str]:
    """Names a top-level statement binds."""
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {stmt.name}
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in stmt.names if a.name != "*"}
    if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    return set()


def _reads(node: ast.AST) -> set[str]:
    """Free names a statement reads: loads minus what it binds itself (parameters, local assignments)."""
    loads, local = set(), set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            (loads if isinstance(n.ctx, ast.Load) else local).add(n.id)
        elif isinstance(n, ast.arg):
            local.add(n.arg)
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        # decorators and annotations are evaluated in the enclosing scope: a parameter does not shadow them
        outer = set()
        for d in node.decorator_list:
            outer |= {n.id for n in ast.walk(d) if isinstance(n, ast.Name)}
        return (loads - local) | outer
    return loads - local


def decorator_names(node: ast.stmt) -> list[str]:
    out = []
    for d in getattr(node, "decorator_list", []):
        target = d.func if isinstance(d, ast.Call) else d
        out.append(target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", ""))
    return out


def _takes(stmt: ast.stmt) -> bool:
    """Top-level statements worth copying: not classes other than structs, not code that does work."""
    if isinstance(stmt, ast.ClassDef):
        return "struct" in decorator_names(stmt)
    return isinstance(stmt, (ast.FunctionDef, ast.Import, ast.ImportFrom, ast.Assign, ast.AnnAssign))


def _attached_to(stmt: ast.stmt, taken: set[str]) -> bool:
    """A custom gradient/replay of a taken function, or an overload declaration of a taken kernel."""
    if isinstance(stmt, ast.FunctionDef):
        for d in stmt.decorator_list:
            if isinstance(d, ast.Call) and d.args:
                name = d.func.attr if isinstance(d.func, ast.Attribute) else getattr(d.func, "id", "")
                if name in _ATTACHED and isinstance(d.args[0], ast.Name) and d.args[0].id in taken:
                    return True
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        call = stmt.value
        name = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")
        return (
            name == "overload" and bool(call.args) and isinstance(call.args[0], ast.Name) and call.args[0].id in taken
        )
    return False


def _segment(lines: list[str], node: ast.stmt) -> str:
    first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
    return "".join(lines[first - 1 : node.end_lineno]).rstrip() + "\n"


@lru_cache(maxsize=4)
def syntax_tree(module_source: str) -> ast.Module:
    """A module's syntax tree, parsed once for all of its kernels (raises ``SyntaxError``). Every reader here only
    reads the tree. Parsing a large test module again for each of its kernels, and for each question asked of it,
    took longer than Warp's own code generation of those kernels."""
    return ast.parse(module_source)


@lru_cache(maxsize=4)
def _function_defs(tree: ast.Module) -> tuple[ast.FunctionDef, ...]:
    """Every ``def`` of a tree, at any depth, in ``ast.walk`` order."""
    return tuple(node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef))


def _find(tree: ast.Module, name: str, first_line: int) -> tuple[ast.stmt, bool]:
    """The kernel's ``def``: top-level if one starts at ``first_line``, else the nested one there."""
    candidates = []
    for node in _function_defs(tree):
        if node.name == name:
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            if first <= first_line <= node.lineno:
                candidates.append(node)
    if not candidates:
        raise ExtractError(name, first_line, "no def of that name starts there")
    node = candidates[0]
    return node, node not in tree.body


def star_imports(module_source: str, package: str | None) -> list[str]:
    """The modules a module's top-level ``from M import *`` statements name, made absolute against ``package``."""
    try:
        tree = syntax_tree(module_source)
    except SyntaxError:
        return []
    return [_absolute(s, package) for s in tree.body if _is_star(s)]


def _is_star(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.ImportFrom) and any(a.name == "*" for a in stmt.names)


def extract(
    module_source: str,
    kernel_name: str,
    first_line: int,
    bound: dict[str, str] | None = None,
    key: str | None = None,
    package: str | None = None,
    starred: frozenset[str] = frozenset(),
) -> Extracted:
    """Cut kernel ``kernel_name`` (its decorator or ``def`` on line ``first_line``) out of a module's source.

    ``bound`` gives Python expressions for names the kernel reads from an enclosing function (a kernel made by a
    factory sees the factory's arguments, e.g. ``dtype``); they are written as assignments before the kernel and
    are no longer unresolved. A kernel whose ``key`` (the name Warp emits) is not its def's name is renamed to it,
    and one made by calling ``wp.Kernel(func, key=...)`` on a plain function gets the ``@wp.kernel`` decorator, so
    the source builds the same kernel. Relative imports are made absolute against ``package`` (the package the
    module is in), so the source imports the same things from anywhere.

    ``starred`` names the kernel reads that the module's ``from M import *`` statements bring (which only the
    imported module can tell: ``shipped_names.star_bound``); the source keeps those statements, and the names are
    no longer unresolved.
    """
    try:
        tree = syntax_tree(module_source)
    except SyntaxError as exc:
        raise ExtractError(kernel_name, first_line, f"module does not parse: {exc}") from exc
    kernel, nested = _find(tree, kernel_name, first_line)
    lines = module_source.splitlines(True)
    needed = _Needed.of(tree, kernel, kernel_name)
    starred = starred & needed.unresolved
    # the star imports go in with the others, in module order: a later import of a name wins, as in the module
    stars = {i for i, s in enumerate(tree.body) if _is_star(s)} if starred else set()
    body = [tree.body[i] for i in sorted(needed.chosen | stars)]
    imports = [s for s in body if isinstance(s, (ast.Import, ast.ImportFrom)) and not _is_warp_import(s)]
    bound = {k: v for k, v in (bound or {}).items() if k in needed.unresolved}
    values = "".join(f"{k} = {v}\n" for k, v in sorted(bound.items()))
    # (position, text): definitions and class stubs in source order; a nested kernel goes last
    placed = [(s.lineno, _segment(lines, s)) for s in body if not isinstance(s, (ast.Import, ast.ImportFrom))]
    placed += [(needed.classes[c].lineno, _stub(lines, needed.classes[c], m)) for c, m in needed.members.items()]
    at = float("inf") if nested else kernel.lineno
    own = _as_kernel(_dedent(_segment(lines, kernel)), kernel, key)
    placed += [(at, (values + "\n\n" if values else "") + own)]
    parts = [PRELUDE + "".join(_import_text(lines, s, package) for s in imports)] + [t for _, t in sorted(placed)]
    unresolved = needed.unresolved - set(bound) - starred - {"wp"}
    return Extracted("\n\n".join(parts), tuple(sorted(unresolved)), nested)


@dataclass
class _Needed:
    """What a kernel needs from its module, found by following names to a fixed point: the top-level statements
    (by position), the members of plain classes it reads as ``Class.attribute``, and what no statement defines."""

    tree: ast.Module
    kernel: ast.stmt
    binders: dict[str, list[int]]  # name -> positions of the top-level statements worth copying that bind it
    classes: dict[str, ast.ClassDef]  # plain (non-struct) classes by name
    chosen: set[int] = field(default_factory=set)
    members: dict[str, dict[int, ast.stmt]] = field(default_factory=dict)  # class -> members read, by position
    taken: set[str] = field(default_factory=set)
    unresolved: set[str] = field(default_factory=set)
    pending: list[str] = field(default_factory=list)
    scanned: list[ast.AST] = field(default_factory=list)

    @classmethod
    def of(cls, tree: ast.Module, kernel: ast.stmt, kernel_name: str) -> _Needed:
        binders: dict[str, list[int]] = {}
        for i, stmt in enumerate(tree.body):
            if _takes(stmt):
                for name in _bound(stmt):
                    binders.setdefault(name, []).append(i)
        classes = {s.name: s for s in tree.body if isinstance(s, ast.ClassDef) and not _takes(s)}
        needed = cls(tree, kernel, binders, classes, taken={kernel_name})
        needed._scan(kernel)
        # each pass can reach new names: a taken function's custom gradient reads helpers, a class member reads
        # a constant; stop when a pass adds nothing
        while True:
            needed._follow_names()
            extra = needed._take_attached()
            needed._take_class_members()
            if not needed.pending and not extra:
                return needed

    def _scan(self, node: ast.AST) -> None:
        self.scanned.append(node)
        self.pending.extend(sorted(_reads(node)))

    def _follow_names(self) -> None:
        while self.pending:
            name = self.pending.pop()
            if name in self.taken:
                continue
            self.taken.add(name)
            if name in self.classes and name not in self.binders:
                self.members.setdefault(name, {})
            elif name not in self.binders:
                if name not in _BUILTINS:
                    self.unresolved.add(name)
            else:
                for i in self.binders[name]:
                    if i not in self.chosen:
                        self.chosen.add(i)
                        self._scan(self.tree.body[i])

    def _take_attached(self) -> list[int]:
        body = self.tree.body
        free = [i for i, s in enumerate(body) if i not in self.chosen and s is not self.kernel]
        extra = [i for i in free if _attached_to(body[i], self.taken)]
        for i in extra:
            self.chosen.add(i)
            self._scan(body[i])
        return extra

    def _take_class_members(self) -> None:
        for cls, attr in sorted(_class_attribute_reads(self.scanned, set(self.members))):
            body = self.classes[cls].body
            found = [(n, m) for n, m in enumerate(body) if attr in _bound(m) and m is not self.kernel]
            if not found:
                self.unresolved.add(f"{cls}.{attr}")
            for n, m in found:
                if n not in self.members[cls]:
                    self.members[cls][n] = m
                    self._scan(m)


def _import_text(lines: list[str], stmt: ast.stmt, package: str | None) -> str:
    """An import statement as written, or made absolute when it is relative (``from .utils import x``)."""
    if not (isinstance(stmt, ast.ImportFrom) and stmt.level and package):
        return _segment(lines, stmt)
    names = ", ".join(a.name + (f" as {a.asname}" if a.asname else "") for a in stmt.names)
    return f"from {_absolute(stmt, package)} import {names}\n"


def _absolute(stmt: ast.ImportFrom, package: str | None) -> str:
    """The module a ``from ... import`` names, absolute (a relative one resolved against ``package``)."""
    if not (stmt.level and package):
        return stmt.module or ""
    parts = package.split(".")
    base = parts[: len(parts) - stmt.level + 1]
    return ".".join(base + ([stmt.module] if stmt.module else []))


def _class_attribute_reads(nodes: list[ast.AST], classes: set[str]) -> set[tuple[str, str]]:
    """``(Class, attribute)`` for every ``Class.attribute`` the nodes read, for the given classes."""
    return {
        (n.value.id, n.attr)
        for node in nodes
        for n in ast.walk(node)
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id in classes
    }


def _stub(lines: list[str], cls: ast.ClassDef, members: dict[int, ast.stmt]) -> str:
    """A class holding only the members a kernel reads (``pass`` when none). Bases are left out: they matter to
    Python code, not to the ``@wp.func``s and constants a kernel reaches through the class, and importing them
    would drag in the rest of the library."""
    kept = [_segment(lines, members[n]) for n in sorted(members)]
    return f"class {cls.name}:\n" + ("\n".join(kept) if kept else "    pass\n")


def _as_kernel(text: str, node: ast.FunctionDef, key: str | None) -> str:
    """The kernel's own text, decorated and named as Warp builds it (a nested kernel's key names its enclosing
    function, e.g. ``make_kernel__locals__inner``; at top level the def must carry that name to get that key)."""
    if key and key != node.name and key.isidentifier():
        text = text.replace(f"def {node.name}(", f"def {key}(", 1)
    return text if "kernel" in decorator_names(node) else "@wp.kernel\n" + text


def _is_warp_import(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Import) and any(a.name == "warp" and a.asname == "wp" for a in stmt.names)


def _dedent(text: str) -> str:
    import textwrap

    return textwrap.dedent(text)
