"""Per-corpus realism summary: liveness, expression depth, habits, features, builtins, size.

The unit for habits, features, depth and size is a *program*: in real code, one kernel together with the module's
Warp functions it calls (directly or through each other); in a generated corpus, one generated source (its kernel
and every Warp function it defines). Liveness counts every Warp kernel and function of every module once, so a
helper shared by many kernels is not counted many times. Builtin call counts cover every Warp function too.
"""

from __future__ import annotations

import ast
import statistics
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from builder.analysis.features import FEATURES, ModuleFacts, builtin_calls, features, rhs_depths
from builder.analysis.habits import HABITS, habits
from builder.analysis.kernels import is_kernel, is_stub, own_nodes, warp_functions
from builder.analysis.liveness import Liveness, tree_liveness


@dataclass(frozen=True)
class Program:
    habits: frozenset[str]
    features: frozenset[str]
    depths: tuple[int, ...]
    lines: int


def _called(kernel: ast.FunctionDef, helpers: dict[str, list[ast.FunctionDef]]) -> list[ast.FunctionDef]:
    """The module's Warp functions ``kernel`` calls by name, transitively (every overload of a called name)."""
    seen: dict[str, None] = {}
    stack = [kernel]
    while stack:
        fn = stack.pop()
        for node in own_nodes(fn):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                name = node.func.id
                if name in helpers and name not in seen:
                    seen[name] = None
                    stack.extend(helpers[name])
    return [h for name in seen for h in helpers[name]]


def _lines(functions: Sequence[ast.FunctionDef], lines: Sequence[str]) -> int:
    """Non-blank, non-comment source lines from each ``def`` to the function's end."""
    count = 0
    for fn in functions:
        for line in lines[fn.lineno - 1 : fn.end_lineno]:
            text = line.strip()
            count += bool(text) and not text.startswith("#")
    return count


def programs(tree: ast.Module, lines: Sequence[str], whole: bool) -> list[Program]:
    """The programs of a module: one per kernel, or (``whole``) one holding all of its Warp functions."""
    found = [(fn, kind) for fn, kind in warp_functions(tree) if not is_stub(fn)]
    kernels = [fn for fn, kind in found if is_kernel(kind)]
    helpers: dict[str, list[ast.FunctionDef]] = {}
    for fn, kind in found:
        if not is_kernel(kind):
            helpers.setdefault(fn.name, []).append(fn)
    facts = ModuleFacts.of(tree, [fn.name for fn, kind in found if not is_kernel(kind)])
    if whole:
        every_helper = [h for group in helpers.values() for h in group]
        units = [(kernels[0], every_helper)] if kernels else []
    else:
        units = [(k, _called(k, helpers)) for k in kernels]
    out = []
    for kernel, used in units:
        functions = [kernel, *used]
        out.append(
            Program(
                habits(functions, lines),
                features(kernel, used, facts),
                tuple(rhs_depths(functions)),
                _lines(functions, lines),
            )
        )
    return out


@dataclass
class Corpus:
    """Accumulates modules of one corpus (generated programs, or one group of real files)."""

    name: str
    whole: bool  # one program per module (generated) instead of one per kernel (real code)
    programs: list[Program] = field(default_factory=list)
    liveness: Liveness = Liveness(0, 0, 0, 0)
    calls: Counter[str] = field(default_factory=Counter)
    kinds: Counter[str] = field(default_factory=Counter)  # Warp functions by decorator, declarations included
    modules: int = 0
    unparsed: int = 0  # modules that are not valid Python for this interpreter

    def add(self, source: str) -> None:
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError):
            self.unparsed += 1
            return
        self.modules += 1
        lines = source.splitlines(keepends=True)
        self.programs.extend(programs(tree, lines, self.whole))
        self.liveness = self.liveness + tree_liveness(tree)
        found = list(warp_functions(tree))
        self.calls.update(builtin_calls([fn for fn, _ in found]))
        self.kinds.update(kind for _, kind in found)

    def add_all(self, sources: Iterable[str]) -> Corpus:
        for source in sources:
            self.add(source)
        return self

    def share(self, name: str) -> float:
        """The share of programs showing habit or feature ``name``."""
        if name not in HABITS and name not in FEATURES:
            raise ValueError(f"unknown habit or feature {name!r}")
        if not self.programs:
            return 0.0
        return sum(name in p.habits or name in p.features for p in self.programs) / len(self.programs)

    @property
    def median_depth(self) -> float:
        depths = [d for p in self.programs for d in p.depths]
        return float(statistics.median(depths)) if depths else 0.0

    @property
    def median_max_depth(self) -> float:
        """The median over programs of the program's deepest right-hand side."""
        deepest = [max(p.depths) for p in self.programs if p.depths]
        return float(statistics.median(deepest)) if deepest else 0.0

    @property
    def mean_lines(self) -> float:
        return statistics.fmean(p.lines for p in self.programs) if self.programs else 0.0
