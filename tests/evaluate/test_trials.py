"""Input trials: seeded from the row's coordinates, the row's own inputs first, a smaller launch last."""

from __future__ import annotations

import pytest

from builder.errors import ConfigError
from builder.evaluate import trials
from builder.grammar.policy import CATEGORIES
from builder.grammar.sample import sample
from builder.rng import stable_int
from builder.shipped.launches import launch_ndim
from builder.warp_backend.verify import input_seed


def _row(index: int, split: str = "test") -> tuple[dict, object]:
    s = sample(0, split, index, CATEGORIES)
    return {"seed": 0, "split": split, "index": index}, s.program


def _resizable_row() -> tuple[dict, object]:
    return next(r for r in (_row(i) for i in range(40)) if trials.resizable(r[1]))


def test_a_smaller_launch_reads_no_index_past_its_arrays():
    # an index drawn for the row's launch would read past the launch-shaped arrays of a smaller one
    from builder.grammar.scope import ArrayArg

    resized = [p for p in (_row(i, "train")[1] for i in range(400)) if trials.resizable(p)]
    assert len(resized) > 100
    for p in resized:
        smallest = trials.fewest(p.launch_shape[0])
        assert all(a.iv[1] < smallest for a in p.args if isinstance(a, ArrayArg) and a.role == "index"), p.kernel_name
    # the gather that showed it: `other = indices[idx]` then `thickness[other]`, indices in [0, 31] at a launch of 32
    program = _row(23, "train")[1]
    assert "thickness[other]" in program.own_source and not trials.resizable(program)


def test_first_trial_is_the_rows_own_inputs_then_fresh_seeds():
    row, program = _row(3)
    got = trials.generated(row, program, 4)
    assert got[0] == trials.Trial(input_seed(0, "test", 3))
    assert [t.seed for t in got[1:]] == [stable_int(0, "test", 3, "inputs", "trial", k) for k in (1, 2, 3)]
    assert len({t.seed for t in got}) == 4
    assert trials.generated(row, program, 4) == got  # deterministic


def test_last_trial_launches_fewer_threads_where_the_program_allows():
    row, program = _resizable_row()
    *first, last = trials.generated(row, program, 3)
    assert all(t.launch == () for t in first)
    assert last.launch[1:] == program.launch_shape[1:]
    assert program.launch_shape[0] / 2 <= last.launch[0] < program.launch_shape[0]
    assert trials.generated(row, program, 1) == [trials.Trial(input_seed(*row.values()))]


def test_programs_with_fixed_sizes_keep_their_launch():
    fixed = [(r, p) for r, p in (_row(i) for i in range(40)) if not trials.resizable(p)]
    assert fixed  # stencils (exact sizes), sparse rows (fixed shapes), tiles
    for row, program in fixed:
        assert all(t.launch == () for t in trials.generated(row, program, 4))


def test_real_trials_are_shared_by_a_kernels_rows_and_shrink_every_dimension():
    ids = [f"real/test/warp.examples.core.example_dem:integrate/{c}" for c in ("cpu", "cuda-forward")]
    a, b = (trials.real({"id": i}, 2, 3) for i in ids)
    assert a == b and a[0].launch == (8, 8) and len({t.seed for t in a}) == 3
    assert a[-1].launch[0] == a[-1].launch[1] < 8


def test_launch_ndim_reads_the_unpacked_thread_indices():
    src = (
        "import warp as wp\n\n@wp.kernel\ndef k(a: wp.array2d(dtype=float)):\n    i, j = wp.tid()\n    a[i, j] = 1.0\n"
    )
    assert launch_ndim(src, "k") == 2
    assert launch_ndim(src.replace("i, j = wp.tid()", "i = wp.tid()\n    j = 0"), "k") == 1


@pytest.mark.parametrize("bad", [0, -1, 1.5])
def test_bad_trial_counts_are_refused(bad):
    with pytest.raises(ConfigError, match="--trials must be a positive integer"):
        trials.check_count(bad)


def test_the_gather_that_showed_it_reads_past_its_arrays_at_a_smaller_launch():
    # the premise, on the arrays the evaluator's own trial preparation gives Warp: at the smallest launch a trial
    # could take, `indices` names elements `thickness` no longer holds
    import numpy as np

    from builder.warp_backend import codegen, trial_run

    program = _row(23, "train")[1]
    module, (ns,) = codegen.load_sources([(program.kernel_name, program.source)], "trial_bounds")
    try:
        launch = (trials.fewest(program.launch_shape[0]),)
        prepared = trial_run.generated(program, ns, "cpu")(trials.Trial(seed=0, launch=launch))
        indices, thickness = prepared.arrays["indices"].numpy(), prepared.arrays["thickness"]
    finally:
        codegen.release(module)
    assert thickness.shape == launch and int(np.max(indices)) >= thickness.shape[0]
