"""The retrieval floors: ``rename`` must turn one kernel's emitted code into what Warp itself emits for that kernel
under other names, so a retrieval baseline fails for what it copied, never for a renaming slip."""

from __future__ import annotations

import io
import tokenize

import pytest

from builder.evaluate import baselines
from builder.grammar.policy import CATEGORIES
from builder.grammar.sample import sample
from builder.warp_backend import codegen

CONFIGS = ("cpu", "cuda-forward", "cuda-backward")


def _renamed_source(source: str, names: dict[str, str]) -> str:
    """``source`` with each Python name in ``names`` replaced (an attribute after ``.`` is another name)."""
    out, previous = [], None
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.NAME and tok.string in names and previous != ".":
            tok = tok._replace(string=names[tok.string])
        out.append(tok)
        previous = tok.string
    return tokenize.untokenize(out)


def _code(ir: str) -> list[str]:
    return [line for line in ir.splitlines() if not line.strip().startswith("//")]  # comments quote the Python


@pytest.mark.parametrize("index", range(0, 2 * len(CATEGORIES), 3))
def test_rename_gives_what_warp_emits_for_the_renamed_kernel(index):
    program = sample(7, "train", index, CATEGORIES).program
    args = [a.name for a in program.args]
    names = {program.kernel_name: "renamed_kernel", **{a: f"zz_arg{i}" for i, a in enumerate(args)}}
    configs = CONFIGS if program.backward else tuple(c for c in CONFIGS if c != "cuda-backward")  # no adjoint
    before = codegen.emit("before", program.source, f"wcir_before_{index}", configs)
    # renamed in the program's own code only: a sibling kernel before it may use the same words for its own
    head, own = program.source[: program.own_at], program.source[program.own_at :]
    after = codegen.emit("after", head + _renamed_source(own, names), f"wcir_after_{index}", configs)
    old = {"kernel_name": program.kernel_name, "arg_names": args}
    new = {"kernel_name": "renamed_kernel", "arg_names": [names[a] for a in args]}
    for config in configs:
        got = baselines.rename(before[config].ir, old, new)
        assert _code(got) == _code(after[config].ir), (config, program.source)


def test_same_types_prefers_a_neighbour_with_the_row_s_argument_types():
    row = {"category": "c", "python_source": "a b c", "arg_types": ["int32"], "kernel_name": "k", "arg_names": ["x"]}
    row |= {"target": "cpu", "pass": "forward"}
    close = {**row, "arg_types": ["float32"], "ir": "close"}
    typed = {**row, "python_source": "z y", "ir": "typed"}
    assert baselines.nearest_row(row, [close, typed])["ir"] == "close"
    assert baselines.nearest_row(row, [close, typed], same_types=True)["ir"] == "typed"
    assert baselines.nearest_row(row, [close], same_types=True)["ir"] == "close"  # no typed row: the plain pool


SIBLING = "@wp.kernel\ndef s{n}(a: wp.array(dtype=float)):\n    a[wp.tid()] = wp.sin(a[wp.tid()]) * {n}.0\n\n\n"


def test_retrieval_reads_the_rows_own_kernel_and_keeps_to_its_target_and_pass():
    own = "@wp.kernel\ndef k(x: wp.array(dtype=int)):\n    x[wp.tid()] = x[wp.tid()] + 1\n"
    head = "import warp as wp\n\n\n"
    # the row's module holds three sibling kernels before its own
    row = {"category": "c", "kernel_name": "k", "python_source": head + SIBLING.format(n=1) * 3 + own}
    row |= {"target": "cpu", "pass": "forward", "arg_types": ["int32"], "arg_names": ["x"]}
    alone = {**row, "python_source": head + own, "ir": "own"}  # the same kernel, no siblings
    # the same siblings, another kernel: the closer module, were whole sources compared
    siblings = {**row, "kernel_name": "s2", "python_source": head + SIBLING.format(n=1) * 3 + SIBLING.format(n=2)}
    siblings["ir"] = "sib"
    assert baselines.nearest_row(dict(row), [siblings, alone])["ir"] == "own"
    backward = {**alone, "pass": "backward", "ir": "backward"}
    assert baselines.nearest_row(dict(row), [backward, siblings])["ir"] == "sib"  # never another pass's ir


def test_lift_retrieval_reads_the_rows_ir_never_its_python_and_renames_the_neighbours_kernel():
    row = {"target": "cpu", "pass": "forward", "kernel_name": "mine", "arg_names": ["out", "scale"]}
    row |= {"id": "r", "ir": "void mine_cpu_kernel_forward ( a + b * c )", "python_source": "@wp.kernel\ndef mine"}
    near = {**row, "kernel_name": "theirs", "arg_names": ["dst", "k"], "ir": "void theirs_cpu ( a + b * c )"}
    near["python_source"] = "@wp.kernel\ndef theirs(dst: wp.array(dtype=float), k: float):\n    dst[0] = k * dst_k\n"
    far = {**near, "ir": "for ( ; ; ) { x = y ; }", "python_source": row["python_source"]}  # its Python is the row's
    (pred,) = baselines.predictions("lift_retrieval_rename", [row], [far, near])
    assert pred == {
        "id": "r",
        "python": "@wp.kernel\ndef mine(out: wp.array(dtype=float), scale: float):\n    out[0] = scale * dst_k\n",
    }
    assert baselines.predictions("lift_reference", [row], []) == [{"id": "r", "python": row["python_source"]}]
