"""The grammar layer draws programs without Warp: it imports nothing above it, and its modules form no circle."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

GRAMMAR = Path(__file__).resolve().parents[2] / "builder" / "grammar"
ALLOWED = ("builder.grammar", "builder.rng", "builder.errors")  # and the standard library


def _imports(path: Path) -> set[str]:
    """Every module ``path`` imports: at the top, inside functions and under TYPE_CHECKING alike."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
            if node.module == "builder.grammar":  # from builder.grammar import wtypes
                out |= {f"builder.grammar.{a.name}" for a in node.names}
        elif isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
    return out


def test_grammar_imports_nothing_above_it():
    bad = {}
    for path in sorted(GRAMMAR.glob("*.py")):
        above = sorted(
            m
            for m in _imports(path)
            if m.split(".")[0] in ("warp", "datasets", "numpy")
            or (m.startswith("builder") and m != "builder" and not m.startswith(ALLOWED))
        )
        if above:
            bad[path.name] = above
    assert not bad, bad


def test_grammar_modules_form_no_circle():
    graph = {
        p.stem: {m.rsplit(".", 1)[1] for m in _imports(p) if m.startswith("builder.grammar.")}
        for p in GRAMMAR.glob("*.py")
    }

    def cycle_from(node: str, stack: list[str]) -> list[str] | None:
        if node in stack:
            return stack[stack.index(node) :] + [node]
        for nxt in sorted(graph.get(node, ())):
            found = cycle_from(nxt, [*stack, node])
            if found:
                return found
        return None

    for module in sorted(graph):
        assert cycle_from(module, []) is None, " -> ".join(cycle_from(module, []))


def test_drawing_a_program_loads_neither_warp_nor_anything_above_the_grammar():
    code = (
        "import sys\n"
        "from builder.grammar.policy import CATEGORIES\n"
        "from builder.grammar.sample import sample\n"
        "sample(0, 'train', 3, CATEGORIES)\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('warp', 'datasets', 'numpy')"
        f" or (m.startswith('builder.') and not m.startswith({ALLOWED!r}))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
