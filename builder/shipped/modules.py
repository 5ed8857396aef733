"""Which shipped modules hold real kernels: a deterministic walk of the installed warp package.

Three sources: ``examples`` (``warp/examples``), ``library`` (``warp/_src``) and ``tests`` (``warp/tests``). Module
order is the sorted dotted name, so ids and row order do not depend on the file system.
"""

from __future__ import annotations

import ast
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from builder.errors import ConfigError

SOURCES = {"examples": "examples", "library": "_src", "tests": "tests"}


@dataclass(frozen=True)
class ShippedModule:
    source: str  # examples, library or tests
    name: str  # dotted module name, e.g. warp.examples.core.example_dem
    path: str  # path inside the warp package, e.g. warp/examples/core/example_dem.py

    def __post_init__(self) -> None:
        if self.source not in SOURCES:
            raise ConfigError(f"unknown real-kernel source {self.source!r}; valid: {', '.join(SOURCES)}")
        if not self.name.startswith("warp.") or not self.path.endswith(".py"):
            raise ConfigError(f"not a module of the warp package: {self.name!r} ({self.path!r})")


def warp_package_dir() -> Path:
    """The installed warp package's folder, found without importing it (planning a build stays cheap)."""
    import importlib.util

    spec = importlib.util.find_spec("warp")
    if spec is None or spec.origin is None:
        raise ConfigError("the real config needs warp-lang installed: no 'warp' package found")
    return Path(spec.origin).resolve().parent


def modules(warp_dir: Path, sources: tuple[str, ...] = tuple(SOURCES)) -> list[ShippedModule]:
    """Every ``.py`` module under the chosen sources that mentions ``@wp.kernel``, sorted by source then name."""
    bad = [s for s in sources if s not in SOURCES]
    if bad:
        raise ConfigError(f"unknown real-kernel sources {bad}; valid: {', '.join(SOURCES)}")
    warp_dir = Path(warp_dir)
    out = []
    for source in SOURCES:  # fixed order: examples, library, tests
        if source not in sources:
            continue
        for file in sorted((warp_dir / SOURCES[source]).rglob("*.py")):
            rel = file.relative_to(warp_dir.parent)
            if "__pycache__" in rel.parts or "wp.kernel" not in file.read_text(encoding="utf-8", errors="replace"):
                continue
            parts = rel.with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            out.append(ShippedModule(source, name, rel.as_posix()))
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
