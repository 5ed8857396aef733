"""Dead assignments and unused parameters in the Warp kernels and functions of a module's source.

Definitions (every Warp function found by ``kernels.warp_functions``; declarations with an empty body are skipped):

- An *assignment* is a statement that binds or updates a local name: ``x = e``, ``x: T = e``, ``x += e``,
  ``a, b = e``, and a component store into a local (``v[0] = e``, ``v.x = e``, ``m[i, j] += e``), which updates
  ``v``. Loop targets (``for i in range(n)``) bind names but are not counted. Stores into a parameter, into an
  alias of one (``a[i] = e``, ``s.x = e``, ``out = s.arr; out[i] = e``, ``row = a[0, :]; row[i] = e``) or into
  a global (``wp.adjoint[x] = e``) are outputs, not assignments.
- A statement is a *sink* (live by itself) when it is such an output store, calls anything as a statement
  (``wp.atomic_add(...)``, ``helper(out, i)``, ``wp.printf(...)``), contains an effectful call anywhere
  (``old = wp.atomic_add(...)``, ``wp.tile_store``, ``arr.atomic_max``, a module function that itself has effects),
  returns (a value, or early), ``break``/``continue``/``assert``.
- Liveness is name-level and flow-insensitive, solved to a least fixed point: a name is live when a live statement
  reads it; a statement is live when it is a sink or binds a live name; a live statement also makes live every name
  read by the ``if``/``while`` tests and loop ranges that guard it. So ``x = x + 1`` in a loop is dead unless some
  live statement reads ``x``, and a branch test is live only when its branch holds a live statement. Being
  flow-insensitive, a dead re-definition of a name that is also read live elsewhere counts as live: the dead count
  is a lower bound.
- A *parameter* (of kernels and functions alike) is unused when the body never reads it (a store into ``a[i]``
  reads ``a``; ``k = 1`` alone does not read ``k``). It is *idle* when only dead statements read it; unused and
  idle parameters together are the *ineffective* ones: they cannot change any output.

``dead_names``, ``unused_params`` and ``idle_params`` name ``function.variable``, once per function, in source order.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass

from builder.analysis.kernels import is_stub, own_nodes, param_names, warp_functions

# Callee names (attribute or bare) whose call has an effect outside the function.
EFFECT_PREFIXES = ("atomic_", "tile_atomic_", "tile_store", "tile_scatter", "expect_")
EFFECT_NAMES = frozenset({"printf", "print", "tile_store"})
# Calls that build an array view: a local bound to one is an alias, and stores through it are outputs.
ARRAY_BUILDERS = frozenset({"array", "array1d", "array2d", "array3d", "array4d", "indexedarray", "fabricarray"})


@dataclass(frozen=True)
class Liveness:
    assignments: int
    dead: int
    params: int
    unused: int
    dead_names: tuple[str, ...] = ()
    unused_params: tuple[str, ...] = ()
    idle_params: tuple[str, ...] = ()  # read, but only by dead statements

    def __post_init__(self):
        if not 0 <= self.dead <= self.assignments:
            raise ValueError(f"dead={self.dead!r} must lie in [0, assignments={self.assignments!r}]")
        if not 0 <= self.unused <= self.params:
            raise ValueError(f"unused={self.unused!r} must lie in [0, params={self.params!r}]")
        if len(self.unused_params) != self.unused:
            raise ValueError(f"unused_params={self.unused_params!r} does not hold unused={self.unused!r} names")
        if self.unused + len(self.idle_params) > self.params:
            raise ValueError(f"idle_params={self.idle_params!r} and unused={self.unused!r} exceed params")

    @property
    def dead_share(self) -> float:
        return self.dead / self.assignments if self.assignments else 0.0

    @property
    def unused_share(self) -> float:
        return self.unused / self.params if self.params else 0.0

    @property
    def ineffective_share(self) -> float:
        """Parameters that cannot affect any output: unused or idle."""
        return (self.unused + len(self.idle_params)) / self.params if self.params else 0.0

    def __add__(self, other: Liveness) -> Liveness:
        return Liveness(
            self.assignments + other.assignments,
            self.dead + other.dead,
            self.params + other.params,
            self.unused + other.unused,
            self.dead_names + other.dead_names,
            self.unused_params + other.unused_params,
            self.idle_params + other.idle_params,
        )


@dataclass(frozen=True)
class _Stmt:
    defs: frozenset[str]
    uses: frozenset[str]  # including the names of the tests and ranges that guard it
    sink: bool
    effect: bool  # an output store or effectful call (what makes a helper function effectful)
    counted: bool  # one of the 'assignments'


def _loads(node: ast.AST | None) -> set[str]:
    if node is None:
        return set()
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Store)}


def _callee(call: ast.Call) -> str | None:
    f = call.func
    if isinstance(f, ast.Attribute):
        return f.attr
    if isinstance(f, ast.Name):
        return f.id
    return None


def _has_effect(node: ast.AST | None, effectful: frozenset[str]) -> bool:
    if node is None:
        return False
    for n in ast.walk(node):
        if isinstance(n, ast.Call) and (name := _callee(n)) is not None:
            if name in EFFECT_NAMES or name.startswith(EFFECT_PREFIXES) or name in effectful:
                return True
    return False


def _root(target: ast.expr) -> ast.Name | None:
    while isinstance(target, (ast.Subscript, ast.Attribute)):
        target = target.value
    return target if isinstance(target, ast.Name) else None


def _is_slice(node: ast.expr) -> bool:
    """``a[1:, i]``: a view of the array, not a copy of an element."""
    return isinstance(node, ast.Subscript) and any(isinstance(n, ast.Slice) for n in ast.walk(node.slice))


def _aliases(fn: ast.FunctionDef, params: frozenset[str]) -> frozenset[str]:
    """Locals bound to a parameter, a field or slice of one, or a new array: stores through them are outputs."""
    binds = [
        (n.targets[0].id, n.value)
        for n in own_nodes(fn)
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)
    ]
    refs = set(params)
    changed = True
    while changed:
        changed = False
        for name, value in binds:
            if name in refs:
                continue
            root = _root(value) if isinstance(value, (ast.Name, ast.Attribute)) or _is_slice(value) else None
            built = isinstance(value, ast.Call) and _callee(value) in ARRAY_BUILDERS
            if built or (root is not None and root.id in refs):
                refs.add(name)
                changed = True
    return frozenset(refs)


class _Collector:
    def __init__(self, locals_: frozenset[str], effectful: frozenset[str]):
        self.locals = locals_
        self.effectful = effectful
        self.stmts: list[_Stmt] = []

    def add(self, defs, uses, guards, sink, effect, counted):
        self.stmts.append(_Stmt(frozenset(defs), frozenset(uses | guards), sink, effect, counted))

    def block(self, body: Iterable[ast.stmt], guards: frozenset[str]) -> None:
        for stmt in body:
            self.stmt(stmt, guards)

    def targets(self, targets: list[ast.expr]) -> tuple[set[str], set[str], bool]:
        """(names bound or updated, names read by the targets, whether any target is an output store)."""
        defs: set[str] = set()
        reads: set[str] = set()
        output = False
        stack = list(targets)
        while stack:
            t = stack.pop()
            if isinstance(t, ast.Name):
                defs.add(t.id)
            elif isinstance(t, (ast.Tuple, ast.List)):
                stack.extend(t.elts)
            elif isinstance(t, ast.Starred):
                stack.append(t.value)
            else:
                root = _root(t)
                reads |= _loads(t)
                if root is None or root.id not in self.locals:
                    output = True  # into a parameter, an alias of one, or a global (``wp.adjoint[x] = ...``)
                else:
                    defs.add(root.id)
                    reads.discard(root.id)  # a component store updates the local, it does not read it
        return defs, reads, output

    def stmt(self, stmt: ast.stmt, guards: frozenset[str]) -> None:
        fx = self.effectful
        if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            if stmt.value is None:
                return  # a bare annotation declares, it does not assign
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            defs, reads, output = self.targets(targets)
            uses = reads | _loads(stmt.value)
            if isinstance(stmt, ast.AugAssign):
                uses |= defs  # x += e reads x
            effect = output or _has_effect(stmt.value, fx)
            self.add(defs, uses, guards, effect, effect, bool(defs))
        elif isinstance(stmt, ast.Expr):
            if isinstance(stmt.value, ast.Call) or _has_effect(stmt.value, fx):
                self.add((), _loads(stmt.value), guards, True, True, False)
        elif isinstance(stmt, ast.Return):
            self.add((), _loads(stmt.value), guards, True, _has_effect(stmt.value, fx), False)
        elif isinstance(stmt, (ast.Break, ast.Continue)):
            self.add((), set(), guards, True, False, False)
        elif isinstance(stmt, ast.Assert):
            self.add((), _loads(stmt.test) | _loads(stmt.msg), guards, True, False, False)
        elif isinstance(stmt, (ast.If, ast.While)):
            test = _loads(stmt.test)
            if _has_effect(stmt.test, fx):
                self.add((), test, guards, True, True, False)
            inner = guards | test
            self.block(stmt.body, inner)
            self.block(stmt.orelse, inner)
        elif isinstance(stmt, ast.For):
            iters = _loads(stmt.iter)
            defs, reads, _ = self.targets([stmt.target])
            effect = _has_effect(stmt.iter, fx)
            self.add(defs, iters | reads, guards, effect, effect, False)
            self.block(stmt.body, guards | iters)
            self.block(stmt.orelse, guards | iters)
        elif isinstance(stmt, ast.With):
            self.block(stmt.body, guards | set().union(*(_loads(i.context_expr) for i in stmt.items)))
        elif isinstance(stmt, ast.Try):
            for part in (stmt.body, stmt.orelse, stmt.finalbody, *(h.body for h in stmt.handlers)):
                self.block(part, guards)


def _bound(fn: ast.FunctionDef) -> frozenset[str]:
    """Names the function binds itself (assignment and loop targets)."""
    return frozenset(n.id for n in own_nodes(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))


def _statements(fn: ast.FunctionDef, effectful: frozenset[str]) -> list[_Stmt]:
    locals_ = _bound(fn) - _aliases(fn, frozenset(param_names(fn)))
    collector = _Collector(locals_, effectful)
    collector.block(fn.body, frozenset())
    return collector.stmts


def _live(stmts: list[_Stmt]) -> tuple[list[bool], set[str]]:
    """Which statements are live, and the names live statements read."""
    live = [s.sink for s in stmts]
    names: set[str] = set()
    changed = True
    while changed:
        changed = False
        for i, s in enumerate(stmts):
            if live[i]:
                names |= s.uses
        for i, s in enumerate(stmts):
            if not live[i] and s.defs & names:
                live[i] = True
                changed = True
    return live, names


def _reads(fn: ast.FunctionDef) -> set[str]:
    reads: set[str] = set()
    for node in own_nodes(fn):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Store):
            reads.add(node.id)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            reads.add(node.target.id)
    return reads


def _effectful(functions: list[ast.FunctionDef]) -> frozenset[str]:
    """Names of the module's functions with an effect, directly or through another such function."""
    effectful: frozenset[str] = frozenset()
    while True:
        found = frozenset(fn.name for fn in functions if any(s.effect for s in _statements(fn, effectful)))
        if found == effectful:
            return effectful
        effectful = found


def function_liveness(fn: ast.FunctionDef, effectful: frozenset[str] = frozenset()) -> Liveness:
    stmts = _statements(fn, effectful)
    live, live_reads = _live(stmts)
    dead = [s for s, ok in zip(stmts, live) if s.counted and not ok]
    dead_names = dict.fromkeys(f"{fn.name}.{d}" for s in dead for d in sorted(s.defs))
    reads = _reads(fn)
    params = param_names(fn)
    unused = tuple(f"{fn.name}.{p}" for p in params if p not in reads)
    idle = tuple(f"{fn.name}.{p}" for p in params if p in reads and p not in live_reads)
    counted = sum(s.counted for s in stmts)
    return Liveness(counted, len(dead), len(params), len(unused), tuple(dead_names), unused, idle)


def tree_liveness(tree: ast.AST) -> Liveness:
    functions = [fn for fn, _ in warp_functions(tree) if not is_stub(fn)]
    effectful = _effectful(functions)
    total = Liveness(0, 0, 0, 0)
    for fn in functions:
        total = total + function_liveness(fn, effectful)
    return total


def liveness(source: str) -> Liveness:
    """Dead assignments and unused parameters over every Warp kernel and function in ``source``."""
    return tree_liveness(ast.parse(source))
