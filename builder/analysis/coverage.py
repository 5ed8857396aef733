"""Real Warp code on disk and how much of its builtin use a corpus covers.

The real code is the installed ``warp`` package's own Python: ``examples/``, the library ``_src/`` and ``tests/``.
It is located with ``importlib.util.find_spec`` and read as text; it is never imported.

Weighted coverage: each ``wp.<name>(...)`` builtin weighs the number of times real kernels and Warp functions call
it (call sites inside ``@wp.kernel``/``@wp.func`` bodies, so a builtin every kernel leans on, ``wp.tid``, weighs
most). A corpus's coverage is the summed weight of the builtins it calls at least once over the total weight.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

from builder.shipped.modules import warp_package_dir  # noqa: F401 - re-exported: the corpus reader finds warp here
from builder.shipped.packages import SOURCES, WARP_SOURCES

# column name -> the package sub-folder holding it: warp-lang's shipped kernels' sources (examples, library, tests)
GROUPS: dict[str, str] = {k: SOURCES[k][1].folder for k in WARP_SOURCES}


def group_files(root: Path, group: str) -> list[Path]:
    if group not in GROUPS:
        raise ValueError(f"unknown group {group!r}; expected one of {sorted(GROUPS)}")
    folder = root / GROUPS[group]
    if not folder.is_dir():
        raise FileNotFoundError(f"no {GROUPS[group]!r} folder in the warp package at {str(root)!r}")
    return sorted(folder.rglob("*.py"))


def read_sources(paths: Iterable[Path]) -> Iterator[str]:
    for path in paths:
        yield path.read_text(encoding="utf-8", errors="replace")


def weighted_coverage(used: Iterable[str], weights: Mapping[str, int]) -> float:
    """The share of the total weight carried by the builtins in ``used`` (0.0 for no weight at all)."""
    total = sum(weights.values())
    if total == 0:
        return 0.0
    return sum(weights.get(name, 0) for name in set(used)) / total
