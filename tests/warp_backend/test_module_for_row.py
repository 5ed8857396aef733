"""A row's evidence comes from ``Program.module_for_row`` (the sibling kernels' lines left empty): Warp must
generate the row's kernel there exactly as in the whole module that the row's ``python_source`` and
``module_source`` hold, the kernel must run to the same outputs, and the build's PTX must be what NVRTC writes for
that unit."""

from __future__ import annotations

import ast
import dataclasses
import re

import pytest

from builder.build_options import BuildOptions
from builder.configs import UNITS
from builder.grammar.policy import CATEGORIES
from builder.grammar.sample import sample
from builder.sources.drawn.records import generated_rows
from builder.warp_backend import codegen, verify


def _with_siblings(seed: int, count: int) -> list[tuple[int, object]]:
    out, index = [], 0
    while len(out) < count:
        program = sample(seed, "train", index, CATEGORIES).program
        if program.own_at:
            out.append((index, program))
        index += 1
    return out


def _kernels(source: str) -> list[str]:
    return [
        n.name
        for n in ast.parse(source).body
        if isinstance(n, ast.FunctionDef) and any("kernel" in ast.unparse(d) for d in n.decorator_list)
    ]


@pytest.mark.parametrize("seed", [0, 11, 404])
def test_warp_writes_the_rows_kernel_the_same_without_its_siblings(seed):
    for index, program in _with_siblings(seed, 8):
        own = program.module_for_row
        assert len(_kernels(program.source)) > 1 and _kernels(own) == [program.kernel_name]
        assert own.count("\n") == program.source.count("\n") and own.endswith(program.source[program.own_at :])
        configs = tuple(c for c in UNITS if program.backward or c != "cuda-backward")
        whole = codegen.emit("whole", program.source, f"mfr_w_{seed}_{index}", configs, block_dim=program.block_dim)
        alone = codegen.emit("own", own, f"mfr_o_{seed}_{index}", configs, block_dim=program.block_dim)
        for c in configs:
            assert (alone[c].ir, alone[c].entry, alone[c].options) == (whole[c].ir, whole[c].entry, whole[c].options)
            assert alone[c].ir in whole[c].tu and len(alone[c].tu) < len(whole[c].tu)


@pytest.mark.slow
def test_a_cuda_rows_ptx_is_nvrtcs_for_the_module_without_siblings_and_its_module_source_is_whole():
    opts = BuildOptions(config="cuda-forward", seed=3, num_train=12, num_validation=0, num_test=0, verify="compile")
    rows = {r["id"]: r for r in generated_rows(opts, "train", 0, 12)}
    mine = [(i, p) for i, p in _with_siblings(3, 12) if i < 12]
    assert mine
    for index, program in mine:
        row = rows[f"cuda-forward/train/3/{index}"]
        assert row["compiled"] and row["python_source"] == program.source
        unit = codegen.emit("own", program.module_for_row, f"mfr_p_{index}", ("cuda-forward",), block_dim=0)
        assert row["ir"] == unit["cuda-forward"].ir and row["ir"] in row["module_source"]
        for name in _kernels(program.source):  # every sibling's code is in the row's module_source
            assert f"{name}_cuda_kernel_forward(" in row["module_source"]
        item = verify.Item("own", program, unit["cuda-forward"].tu, 0)
        verify.compile_cuda([item], 1)
        assert _unnumbered(row["ptx"]) == _unnumbered(item.evidence.pass_ptx["forward"])


def _unnumbered(ptx: str) -> str:
    # NVRTC numbers labels and local depots by the function's place in what it compiled, and the build compiles
    # units in batches (compile_units), so those numbers depend on the batch
    return re.sub(r"(\$L__BB|__local_depot)\d+", r"\1", ptx)


def test_the_kernel_runs_to_the_same_outputs_and_gradients_without_its_siblings():
    programs = _with_siblings(5, 6)
    runs = {}
    for name, of in (("own", lambda p: p), ("whole", lambda p: dataclasses.replace(p, own_at=0))):
        runs[name] = [verify.Item(f"index={i}", of(p), "", verify.input_seed(5, "train", i)) for i, p in programs]
        assert [it.program.module_for_row == it.program.source for it in runs[name]] == [name == "whole"] * 6
        verify.execute_cpu(runs[name], 16)
    for own, whole in zip(runs["own"], runs["whole"], strict=True):
        assert own.evidence.executed and whole.evidence.executed
        assert (own.evidence.output_checksum, own.evidence.grad_checksum) == (
            whole.evidence.output_checksum,
            whole.evidence.grad_checksum,
        )
