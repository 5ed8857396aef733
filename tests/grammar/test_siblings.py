"""Generator 4.5.0's modules (``grammar.siblings``): a program written as the last kernel of a module of siblings.

Python's ``ast`` reads the modules: the row's kernel is the last, the module defines each name once and no
sibling's name is another's local, the program is the one drawn without siblings, and no sibling could change
the row's code (a tile kernel's block size, module options).
"""

from __future__ import annotations

import ast
import dataclasses
import re

from builder.grammar import generator, siblings
from builder.grammar.policy import CATEGORIES, POLICIES
from builder.grammar.program import split_imports
from builder.rng import derive_rng


def _programs(seed: int, count: int) -> list:
    return [generator.generate(derive_rng(seed, "train", i, 0), CATEGORIES[i % len(CATEGORIES)]) for i in range(count)]


def _kernels(source: str) -> list[ast.FunctionDef]:
    return [
        n
        for n in ast.parse(source).body
        if isinstance(n, ast.FunctionDef) and any("kernel" in ast.unparse(d) for d in n.decorator_list)
    ]


def _without_imports(source: str) -> str:
    return split_imports(source)[1]


def test_the_program_is_the_last_kernel_and_is_drawn_as_without_siblings(monkeypatch):
    default = _programs(23, 240)
    for name, pol in list(POLICIES.items()):
        monkeypatch.setitem(
            POLICIES, name, dataclasses.replace(pol, odds=dataclasses.replace(pol.odds, module_siblings=0.0))
        )
    alone = _programs(23, 240)
    with_siblings = 0
    for a, b in zip(default, alone, strict=True):
        kernels = _kernels(a.source)
        assert kernels[-1].name == a.kernel_name == b.kernel_name
        assert len(_kernels(b.source)) == 1 and not b.module_names
        # the program itself is the same: its text ends the module
        assert a.source.endswith(_without_imports(b.source)), a.kernel_name
        assert (a.arg_type_strings(), a.launch_shape, a.block_dim, a.backward) == (
            b.arg_type_strings(),
            b.launch_shape,
            b.block_dim,
            b.backward,
        )
        with_siblings += len(kernels) > 1
    # 60% of programs draw siblings; a tile kernel or one with module options never has them
    assert 0.35 * len(default) < with_siblings < 0.65 * len(default)


def test_a_module_defines_each_name_once_and_names_no_sibling_is_anothers_local():
    for p in _programs(29, 240):
        tree = ast.parse(p.source)
        assert [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))] == tree.body[
            : len([n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))])
        ], "imports come first, once"
        defined = [n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))]
        defined += [t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)]
        # a name is defined once in its program's part of the module; more than once only as an overloaded @wp.func
        # (helpers.py), which Warp tells apart by argument types
        parts = [set(siblings.module_names(u)) for u in siblings.units(p.source)]
        assert sum(len(s) for s in parts) == len(set(defined)), p.kernel_name
        overloads = {n.name for n in tree.body if isinstance(n, ast.FunctionDef) and defined.count(n.name) > 1}
        assert all(
            all(ast.unparse(d) == "wp.func" for d in n.decorator_list)
            for n in tree.body
            if isinstance(n, ast.FunctionDef) and n.name in overloads
        ), p.kernel_name
        assert set(defined) <= p.names | set(p.module_names) | set(
            re.findall(r"^([A-Z_]+) = wp.constant", p.source, re.M)
        )
        kernels = _kernels(p.source)
        if len(kernels) > 1:
            assert not p.block_dim and "set_module_options" not in p.source
            for fn in kernels:
                local = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
                assert not local & set(p.module_names), (fn.name, local & set(p.module_names))


def test_kernels_sit_at_the_lines_written_ones_do():
    lines = []
    for p in _programs(31, 240):
        last = _kernels(p.source)[-1]
        lines.append(last.lineno)
    # written kernels the real config scores start at a median line of 189; a module of one kernel at 5-20
    assert sum(n > 100 for n in lines) > 0.15 * len(lines)
    assert max(lines) > 200


def test_siblings_change_no_rows_program_its_split_or_its_key(monkeypatch):
    from builder.grammar.sample import sample

    drawn = [sample(37, split, i, CATEGORIES) for split in ("train", "test") for i in range(60)]
    for name, pol in list(POLICIES.items()):
        monkeypatch.setitem(
            POLICIES, name, dataclasses.replace(pol, odds=dataclasses.replace(pol.odds, module_siblings=0.0))
        )
    alone = [sample(37, split, i, CATEGORIES) for split in ("train", "test") for i in range(60)]
    assert sum(d.program.own_at > 0 for d in drawn) > 30
    for a, b in zip(drawn, alone, strict=True):
        assert (a.attempt, a.normalized_sha256, a.builtins) == (b.attempt, b.normalized_sha256, b.builtins)
        assert a.program.own_source == b.program.own_source
