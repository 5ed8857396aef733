"""``python -m builder.derive.vocab [--write]``: the identifiers derived kernels are renamed with, read from the
kernels of ``real``'s train split only (never validation, test or a held-out package), without importing them.

``names`` are the parameters and locals those kernels write, ``functions`` the ``@wp.func``s their modules define;
each kept when at least two kernels (or modules) use it, so a name is a habit of written code, not one author's.
The list is kept in ``builder/derive/names.json``; the test suite fails when it is not what this gives now.
"""

from __future__ import annotations

import ast
import json
import sys
from collections import Counter

from builder.derive import NAMES_FILE


def collect() -> dict[str, list[str]]:
    from builder.derive.edits import decorator_name
    from builder.shipped.modules import modules
    from builder.shipped.packages import SOURCES, require
    from builder.shipped.splits import kernel_defs, recorded

    require(tuple(SOURCES))
    every = recorded()
    names, functions = Counter(), Counter()
    for mod in modules():
        train = [k for k in kernel_defs(mod) if every.split_of(mod, k.source_path) == "train"]
        if not train:
            continue
        for k in train:
            try:
                tree = ast.parse(k.text)
            except SyntaxError:
                continue
            mine = {a.arg for a in ast.walk(tree) if isinstance(a, ast.arg)}
            mine |= {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
            names.update(n for n in mine if n.isidentifier() and len(n) > 1)
        try:
            tree = ast.parse(mod.file().read_text(encoding="utf-8", errors="replace"))
        except SyntaxError:
            continue
        funcs = {
            n.name
            for n in ast.walk(tree)
            if isinstance(n, ast.FunctionDef) and any(decorator_name(d) == "func" for d in n.decorator_list)
        }
        functions.update(f for f in funcs if not f.startswith("__"))
    return {
        "names": sorted(n for n, c in names.items() if c >= 2),
        "functions": sorted(f for f, c in functions.items() if c >= 2),
    }


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    fresh = collect()
    print(f"{len(fresh['names'])} names, {len(fresh['functions'])} function names")
    if "--write" in argv:
        NAMES_FILE.write_text(json.dumps(fresh, indent=0) + "\n")
        return 0
    same = NAMES_FILE.is_file() and json.loads(NAMES_FILE.read_text()) == fresh
    print("names.json: " + ("current" if same else "stale: run with --write"))
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
