"""The text of what Warp emits: one function's definition in a translation unit, a source's own kernel, paths
made portable. Pure string work on Warp's output (Warp is imported only to know where it is installed)."""

from __future__ import annotations

import re
from pathlib import Path

import warp as wp


def function(tu: str, symbol: str) -> str:
    """The full definition of ``symbol`` in a translation unit (from its declaration to its closing brace)."""
    found = functions(tu, symbol)
    if not found:
        raise KeyError(f"{symbol} not found in the generated translation unit")
    return found[0]


def functions(tu: str, symbol: str) -> list[str]:
    """Every definition of ``symbol`` in a translation unit, in order: a module's unit holds one per overload of a
    generic kernel, all of one name once hashes are stripped."""
    lines = tu.splitlines()
    pat = re.compile(rf"\b{re.escape(symbol)}\s*\(")
    out = []
    for n, line in enumerate(lines):
        if pat.search(line) and not line.rstrip().endswith(";") and not line.startswith((" ", "\t")):
            start = n - 1 if n > 0 and lines[n - 1].startswith("template") else n
            end = next(k for k in range(n, len(lines)) if lines[k] == "}")
            out.append("\n".join(lines[start : end + 1]) + "\n")
    return out


_WARP_DIR = str(Path(wp.__file__).resolve().parent)


def _portable(tu: str) -> str:
    """Warp stamps helper functions with their absolute source path; keep only the package-relative part."""
    return tu.replace(_WARP_DIR, "warp")


_KERNEL_DEF = re.compile(r"^@wp\.kernel\b(?:\([^)]*\))?\s*\n(?:@.*\n)*def\s+(\w+)", re.M)


def kernel_in(source: str) -> str:
    """Name of the last top-level ``@wp.kernel`` (bare or ``@wp.kernel(...)``) in a source, or ``?``: a generated
    program's own kernel, which comes after any sibling kernels its module holds (``grammar.siblings``)."""
    names = _KERNEL_DEF.findall(source)
    return names[-1] if names else "?"
