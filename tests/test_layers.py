"""The package's layers, imported one way: no module imports a package of a higher layer, not even inside a
function (docs/design.md, "Architecture")."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "builder"
# a package may import its own layer and those below. The rows layer: the checks (row and folder checks), the
# row sources (each hands out the checks that apply to it), then the build driver and the validator, which both
# call the sources
LAYERS = [
    ("rng", "errors", "tolerances", "configs"),
    ("grammar", "shipped", "derive", "repair", "schema", "standalone"),
    ("build_options", "folder_format", "built_folder"),
    ("warp_backend",),
    ("analysis",),
    ("checks",),
    ("sources",),
    ("dataset", "validate"),
    ("evaluate", "train"),
    ("hub", "commands", "cli", "bench"),
]
RANK = {pkg: n for n, layer in enumerate(LAYERS) for pkg in layer}
# the card (a package beside builder) renders a finished folder: only the commands on top may call it; the build
# is handed its renderer (builder.dataset.folder.build_folder(card=...))
RANK["dataset_card"] = RANK["commands"]


def _package(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] == "dataset_card":
        return "dataset_card"
    return parts[1] if len(parts) > 1 and parts[0] == "builder" else None


def _imports(path: Path) -> list[tuple[int, str]]:
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [f"{node.module}.{a.name}" for a in node.names] if node.module == "builder" else [node.module]
            out += [(node.lineno, n) for n in names]
        elif isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
    return out


def test_every_package_has_a_layer():
    packages = {p.stem if p.is_file() else p.name for p in ROOT.iterdir() if not p.name.startswith("__")}
    assert packages - {"py"} <= set(RANK) | {"__init__"}, sorted(packages - set(RANK))


@pytest.mark.parametrize("path", sorted(ROOT.rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_import_reaches_up(path):
    own = _package("builder." + ".".join(path.relative_to(ROOT).with_suffix("").parts))
    if own is None or own == "__init__":
        return
    upward = [
        f"line {line}: {name}"
        for line, name in _imports(path)
        if (dst := _package(name)) in RANK and dst != "GENERATOR_VERSION" and RANK[dst] > RANK[own]
    ]
    assert not upward, f"{path.relative_to(ROOT)} ({own}, layer {RANK[own]}) imports a higher layer: {upward}"


CARD = ROOT.parent / "dataset_card"
# the card renders from the folder's rows and the shared definitions: it loads neither Warp nor the build
CARD_MAY_IMPORT = (
    "builder.analysis",
    "builder.build_options",
    "builder.configs",
    "builder.grammar",
    "builder.folder_format",
    "builder.built_folder",
    "builder.schema",
)
CARD_MAY_IMPORT += ("builder.repair", "builder.shipped", "builder.tolerances", "builder.GENERATOR_VERSION")


@pytest.mark.parametrize("path", sorted(CARD.glob("*.py")), ids=lambda p: p.name)
def test_the_card_imports_nothing_above_it(path):
    above = [
        f"line {line}: {name}"
        for line, name in _imports(path)
        if name.startswith("builder.") and not name.startswith(CARD_MAY_IMPORT)
    ]
    assert not above, f"dataset_card/{path.name} imports {above}"


def test_the_packages_form_no_circle():
    """Imports between packages (at the top and inside functions alike) form no cycle, even within a layer."""
    graph: dict[str, set[str]] = {}
    for path in [*ROOT.rglob("*.py"), *CARD.glob("*.py")]:
        parts = (
            ("builder", *path.relative_to(ROOT).with_suffix("").parts)
            if CARD not in path.parents
            else ("dataset_card",)
        )
        own = _package(".".join(parts))
        if own in (None, "__init__"):
            continue
        graph.setdefault(own, set()).update(
            dst for _, name in _imports(path) if (dst := _package(name)) in RANK and dst != own
        )

    def cycle_from(node: str, stack: list[str]) -> list[str] | None:
        if node in stack:
            return stack[stack.index(node) :] + [node]
        for nxt in sorted(graph.get(node, ())):
            found = cycle_from(nxt, stack + [node])
            if found:
                return found
        return None

    cycles = [c for n in sorted(graph) if (c := cycle_from(n, []))]
    assert not cycles, cycles[0]
