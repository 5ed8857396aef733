"""Which shipped modules hold real kernels: a deterministic walk of the installed packages ``packages`` lists.

A module's *source* is one part of one package (``builder.shipped.packages.SOURCES``). Module order is the
packages' order, then the sorted dotted name, so ids and row order do not depend on the file system.
"""

from __future__ import annotations

import ast
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from builder.errors import ConfigError
from builder.shipped.packages import PARTS, SOURCES, Package, Part, package_dir, part_files, select


@dataclass(frozen=True)
class ShippedModule:
    source: str  # a source key: examples, library, tests (warp-lang's) or PACKAGE/PART
    name: str  # dotted module name, e.g. warp.examples.core.example_dem
    path: str  # path inside its package's parent folder, e.g. warp/examples/core/example_dem.py

    def __post_init__(self) -> None:
        if self.source not in SOURCES:
            raise ConfigError(f"unknown real-kernel source {self.source!r}; valid: {', '.join(SOURCES)}")
        top = self.package.import_name
        if not (self.name == top or self.name.startswith(top + ".")) or not self.path.endswith(".py"):
            raise ConfigError(f"not a module of the {top} package: {self.name!r} ({self.path!r})")

    @property
    def package(self) -> Package:
        return SOURCES[self.source][0]

    @property
    def part(self) -> Part:
        return SOURCES[self.source][1]

    def file(self) -> Path:
        """The module's file in the installed package."""
        return package_dir(self.package.import_name).parent / self.path


def warp_package_dir() -> Path:
    """The installed warp package's folder, found without importing it (planning a build stays cheap)."""
    return package_dir("warp")


def modules(sources: tuple[str, ...] = tuple(SOURCES)) -> list[ShippedModule]:
    """Every ``.py`` module of the chosen sources (keys or package names) that mentions ``@wp.kernel``, in
    collection order: packages as listed, then each package's examples, library and tests, each by dotted name."""
    chosen = set(select(sources))
    out = []
    done: set[str] = set()
    for pkg, _ in SOURCES.values():
        if pkg.distribution in done or not any(SOURCES[k][0] is pkg for k in chosen):
            continue
        done.add(pkg.distribution)
        root = package_dir(pkg.import_name)
        found = []
        for file, part in part_files(pkg, root).items():
            source = pkg.source(part)
            if source not in chosen or "wp.kernel" not in file.read_text(encoding="utf-8", errors="replace"):
                continue
            rel = file.relative_to(root.parent)
            parts = rel.with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found.append(ShippedModule(source, name, rel.as_posix()))
        found.sort(key=lambda m: (PARTS.index(m.part.name), m.name))
        out.extend(found)
    return out


def strided(mods: list[ShippedModule], stride: dict[str, int]) -> list[ShippedModule]:
    """Every k-th module of each source in ``stride`` ({source: k}), the rest kept, order unchanged: a
    deterministic sample for timing a build."""
    seen: Counter = Counter()
    out = []
    for m in mods:
        n, seen[m.source] = seen[m.source], seen[m.source] + 1
        if n % stride.get(m.source, 1) == 0:
            out.append(m)
    return out


# Top-level calls that only declare or configure (an example may make them at import without running anything).
_DECLARATIONS = frozenset({"overload", "set_module_options", "init", "config", "constant", "filterwarnings"})


def runs_code_at_import(text: str) -> str:
    """Why importing an example would run its work (a loop, ``with`` or a call at top level, not under
    ``if __name__ == "__main__"``), or "" when importing it only defines things."""
    try:
        tree = ast.parse(text)
    except SyntaxError as exc:
        return f"does not parse: {exc.msg}"
    for stmt in tree.body:
        if isinstance(stmt, (ast.For, ast.While, ast.With, ast.AsyncFor, ast.AsyncWith)):
            return f"runs a top-level {type(stmt).__name__.lower()} at import"
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            func = stmt.value.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name not in _DECLARATIONS:
                return f"calls {name or 'a function'}() at import"
    return ""
