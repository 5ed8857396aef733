"""Running a written kernel alone (``written.execute_fresh``, what a derived variant that cannot share a build
gets): Warp's debug build on inputs built from the argument types, in a forked child. A kernel that runs leaves
evidence; one that reads past its arrays is stopped by Warp's bounds check (the child dies, the parent says not
executed); one whose argument cannot be built from its type is not run at all."""

from __future__ import annotations

import pytest

from builder.sources.derived.rows import trials
from builder.warp_backend.written import Zygote, emit_fresh, execute_fresh, leading_imports

SCALE = """import warp as wp


@wp.kernel
def scale(a: wp.array(dtype=float), b: wp.array(dtype=float), s: float):
    i = wp.tid()
    b[i] = a[i] * s
"""


def _run(source: str, name: str, arg_types: list[str], tmp_path, backward: bool = True):
    return execute_fresh(source, name, arg_types, backward, trials("test/0", source, name), str(tmp_path))


def test_a_kernel_that_runs_leaves_the_evidence_of_an_execute_row(tmp_path):
    written = emit_fresh("test/0", SCALE, "t_written_scale", "scale")
    assert written.arg_types == ["array(ndim=1, dtype=float32)", "array(ndim=1, dtype=float32)", "float32"]
    run = _run(SCALE, "scale", written.arg_types, tmp_path)
    assert run.passed and run.executed and run.outputs_finite and run.outputs_nondegenerate and run.grads_finite
    assert _run(SCALE, "scale", written.arg_types, tmp_path) == run  # the same trials, the same evidence


def test_a_read_past_the_array_is_stopped_by_the_bounds_check(tmp_path):
    source = SCALE.replace("a[i] * s", "a[i + 1000] * s")
    run = _run(source, "scale", ["array(ndim=1, dtype=float32)"] * 2 + ["float32"], tmp_path)
    assert run.executed is False and not run.passed, run
    assert run.reason


def test_a_kernel_that_writes_nothing_is_executed_but_degenerate(tmp_path):
    source = SCALE.replace("    b[i] = a[i] * s\n", "    x = a[i] * s\n")
    run = _run(source, "scale", ["array(ndim=1, dtype=float32)"] * 2 + ["float32"], tmp_path, backward=False)
    assert run.executed and run.outputs_nondegenerate is False and not run.passed


@pytest.mark.parametrize("arg", ["wp.uint64", "wp.array(dtype=wp.uint64)"])
def test_an_argument_built_from_data_is_not_run(tmp_path, arg):
    source = SCALE.replace("s: float", f"s: {arg}").replace("a[i] * s", "a[i]")
    written = emit_fresh("test/0", source, "t_written_ids", "scale")
    run = _run(source, "scale", written.arg_types, tmp_path)
    assert run.executed is None and "inputs" in run.reason


PACKAGE = """import warp as wp


@wp.func
def helper(x: float):
    return x + 1.0
"""

USES_PACKAGE = """import warp as wp
from {module} import helper as theirs


@wp.func
def helper(x: float):
    return x * 2.0


@wp.kernel
def k(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = helper(a[i]) + theirs(a[i])
"""


def test_a_zygote_emits_each_variant_as_a_fresh_process_does(tmp_path, monkeypatch):
    """The package numbers its ``helper`` first, so a fresh process writes the source's own as ``helper_1``; a
    process that had imported the package before would write ``helper_0``. The zygote imports it once and still
    writes what a fresh process writes, for every variant."""
    module = f"t_written_pkg_{tmp_path.name.replace('-', '_')}"
    (tmp_path / f"{module}.py").write_text(PACKAGE)
    monkeypatch.syspath_prepend(str(tmp_path))
    sources = [USES_PACKAGE.format(module=module), USES_PACKAGE.format(module=module).replace("2.0", "3.0")]
    fresh = [emit_fresh(f"test/{n}", s, f"t_written_fresh_{n}", "k") for n, s in enumerate(sources)]
    assert "helper_1" in fresh[0].units["cpu"].ir
    with Zygote(leading_imports(sources[0])) as zygote:
        made = [zygote.emit(f"test/{n}", s, f"t_written_zygote_{n}", "k") for n, s in enumerate(sources)]
    assert made == fresh


def test_leading_imports_are_only_imports_that_come_first():
    assert leading_imports(SCALE) == "import warp as wp"
    late = SCALE + "\nimport math\n"
    assert leading_imports(late) == ""
