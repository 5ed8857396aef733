"""Kernels through index arrays (generator 4.3.0): every form is drawn, and what makes them safe to run holds in
every program: a link that may be -1 is tested before it indexes anything, every index stays inside the arrays
it indexes, a state copy writes only the value read at the same index (threads sharing an index agree), a pair
never takes the length of a difference that is zero where its ends meet. Warp runs them in the slow test."""

from __future__ import annotations

import ast
import dataclasses
import re

import pytest

from builder.grammar.policy import CATEGORIES
from builder.grammar.program import Param
from builder.grammar.sample import sample
from builder.grammar.scope import ArrayArg

INDEXED = tuple(c for c in CATEGORIES if c.startswith("indexed"))
FORMS = {
    "link ended by a return": re.compile(r"if (\w+) (== -1|< 0):\n(\s+\w+\[[\w, ]+\] = [^\n]+\n)?\s+return\n"),
    "link guarding a block": re.compile(r"if \w+ (>= 0|!= -1):\n"),
    "zero stored for a link's missing end": re.compile(r"if \w+ (== -1|< 0):\n\s+\w+\[[\w, ]+\] = [^\n]*0\.0\)?\n"),
    "state copy": re.compile(r"(dst_\w+)\[([\w, ]+)\] = src_\w+\[\2\]"),
    "flag-gated store": re.compile(r"if \(?\w+\[\w+\]( & 1\))? == 0:\n\s+\w+\[[\w, ]+\] = "),
    "literal then overwritten": re.compile(
        r"(\w+) = (0\.0|wp\.vec3\(0\.0\))\n\s+if [^\n]+:\n\s+(\w+ = [^\n]+\n\s+)*\1 = "
    ),
    "pair of a flat array": re.compile(r"\[\w+ \* 2 \+ 1\]"),
    "pair of a 2-D array": re.compile(r"= \w+\[\w+, 1\]\n"),
    "force on both ends": re.compile(r"wp\.atomic_sub\(\w+, \w+, \w+\)\n\s+wp\.atomic_add\("),
    "device counter": re.compile(r"if \w+ >= \w+\[0\]:\n\s+return"),
    "batch of worlds": re.compile(r"\[\w+, (body|parent|child|shape|b|j|idx|src|other|index)\d*\]"),
}


def _programs(n: int = 150):
    period = len(CATEGORIES)
    for c in INDEXED:
        for j in range(n):
            program = sample(5, "train", CATEGORIES.index(c) + period * j, CATEGORIES).program
            yield dataclasses.replace(program, source=program.own_source)  # its own kernel, not its siblings


@pytest.fixture(scope="module")
def programs():
    return list(_programs())


def test_every_form_is_drawn(programs):
    counts = {name: sum(bool(p.search(prog.source)) for prog in programs) for name, p in FORMS.items()}
    assert all(counts.values()), counts


def _extent(program, a: ArrayArg) -> tuple[int, ...]:
    return a.shape or program.launch_shape


def _kernel(program) -> ast.FunctionDef:
    tree = ast.parse(program.source)
    return next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == program.kernel_name)


def test_links_are_tested_and_every_index_stays_inside_what_it_indexes(programs):
    checked = 0
    for program in programs:
        args = {a.name: a for a in program.args if isinstance(a, ArrayArg)}
        fn = _kernel(program)
        # locals read from an index array: name -> the array's interval
        links = {}
        for node in ast.walk(fn):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Subscript):
                base = node.value.value
                if isinstance(base, ast.Name) and base.id in args and args[base.id].role == "index":
                    links[node.targets[0].id] = (args[base.id].iv, node.lineno)
        compares = [n for n in ast.walk(fn) if isinstance(n, ast.Compare) and isinstance(n.left, ast.Name)]
        tested = {n.left.id: n.lineno for n in compares if isinstance(n.comparators[0], (ast.Constant, ast.UnaryOp))}
        for node in ast.walk(fn):
            if not (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in args):
                continue
            parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            extent = _extent(program, args[node.value.id])
            for axis, part in enumerate(parts):
                if isinstance(part, ast.Name) and part.id in links:
                    (lo, hi), _ = links[part.id]
                    assert hi < extent[axis], (program.source, part.id, extent)
                    if lo < 0:  # a missing link (-1) is tested on a line before it indexes
                        assert part.id in tested and tested[part.id] < node.lineno, program.source
                    checked += 1
    assert checked > 200


def test_a_state_copy_writes_only_what_it_read_at_the_same_index(programs):
    for program in programs:
        for line in program.source.splitlines():
            m = re.match(r"\s+(dst_\w+)\[([\w, ]+)\] = (.*)$", line)
            if m:
                assert re.fullmatch(rf"src_\w+\[{re.escape(m.group(2))}\]", m.group(3)), line


def test_pairs_take_no_length_of_their_difference(programs):
    for program in programs:
        if "* 2 + 1]" in program.source or re.search(r"\[\w+, 1\]\n", program.source):
            assert "wp.length(" not in program.source, program.source


def test_uniform_counters_and_flags_are_arrays_the_executor_fills_in_range(programs):
    for program in programs:
        for a in program.args:
            if isinstance(a, ArrayArg) and a.role == "index":
                assert a.dtype.is_int and a.iv[0] >= -1, (program.source, a)
            if isinstance(a, Param):
                assert a.name in program.source


@pytest.mark.slow
def test_indexed_programs_compile_run_and_validate(tmp_path):
    """Built with execution evidence and validated: every row compiles, runs, has finite, non-degenerate outputs
    and gradients, and no dead assignment."""
    from builder.cli import main

    out = tmp_path / "indexed"
    argv = ["build", "--configs", "cpu,cuda-backward", "--categories", ",".join(INDEXED), "--num-train", "45"]
    assert main([*argv, "--num-validation", "0", "--num-test", "9", "--num-proc", "1", "--out", str(out)]) == 0
    assert main(["validate", str(out)]) == 0
