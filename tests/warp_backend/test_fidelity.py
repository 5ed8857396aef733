"""Every row is what Warp's public pipeline writes for its user: the outside reference, not our own output.

Each program is saved as kernel.py, imported in a fresh process and handed to ``wp.load_module`` (CPU) and
``wp.compile_aot_module`` (CUDA); the row's ``ir`` and whole ``module_source`` must equal what Warp writes
into its kernel cache, with only the normalizations ``public.normalize`` documents.
"""

import pytest

from builder.build_options import BuildOptions
from builder.checks.fidelity import Fidelity
from builder.grammar.policy import CATEGORIES
from builder.sources import source_of
from builder.sources.drawn.records import generated_rows
from builder.sources.shipped.rows import Sample, shipped_rows
from builder.warp_backend import public

EMITTED = ("cuda-forward", "cuda-backward", "cpu")
FIDELITY = Fidelity(source_of)


@pytest.fixture(scope="module")
def generated():
    """One program of every category on the default seed, in every config that has a row for it."""
    n = len(CATEGORIES)
    out = []
    for config in EMITTED:
        opts = BuildOptions(config=config, num_train=n, num_validation=0, num_test=0, verify="none")
        out += list(generated_rows(opts, "train", 0, n))
    return out


def _check(found: list[dict]) -> list[str]:
    keys = sorted({FIDELITY.reference_key(r) for r in found})
    references = dict(zip(keys, public.public_units(keys)))
    return [f"{r['id']}: {d}" for r in found if (d := FIDELITY.differences(r, references))]


def test_every_category_target_and_pass_is_what_warp_writes(generated):
    assert {r["category"] for r in generated} == set(CATEGORIES)
    assert {(r["target"], r["pass"]) for r in generated} == {
        ("cuda", "forward"),
        ("cuda", "backward"),
        ("cpu", "forward"),
    }
    assert _check(generated) == []
    # the launch Warp gives a user by default (wp.config.default_grid_stride), recorded with the other options
    cuda = [r for r in generated if r["target"] == "cuda"]
    assert all("for (size_t _idx = " in r["ir"] and '"default_grid_stride": true' in r["module_options"] for r in cuda)


def test_a_row_that_differs_from_warp_is_named(generated):
    row = dict(next(r for r in generated if r["target"] == "cuda"))
    row["ir"] = row["ir"].replace("for (size_t _idx = ", "for (size_t _jdx = ", 1)
    assert _check([row]) == [f"{row['id']}: ir"]


def test_real_rows_hold_the_function_warp_writes_for_the_shipped_module():
    opts = BuildOptions("real", real_sources="examples,library", verify="none")
    found = list(shipped_rows(opts, Sample(modules=("warp.examples.core.example_dem", "warp._src.optim.adam"))))
    assert {r["target"] for r in found} == {"cuda", "cpu"} and len(found) >= 6
    assert _check(found) == []


def test_a_driver_past_its_time_is_one_line_naming_what_to_change(generated, tmp_path, monkeypatch):
    """A loaded machine (or a shipped module slow to import) can keep Warp's public pipeline past its limit: one
    line that says so, never the child's command line, and its temporary folder gone."""
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    with pytest.raises(RuntimeError) as caught:
        public.public_units([FIDELITY.reference_key(generated[0])], timeout=0.01)
    message = str(caught.value)
    assert message.startswith("Warp's public pipeline did not finish 1 programs within 0 s") and "\n" not in message
    assert "--fidelity-sample" in message and "request.json" not in message
    assert list(tmp_path.iterdir()) == []


def test_rows_written_after_siblings_and_verified_are_what_warp_writes():
    # their evidence is built from Program.module_for_row (the siblings left out); their text must still be the
    # whole module's, as Warp's public pipeline writes it for python_source
    opts = BuildOptions(config="cuda-forward", seed=3, num_train=6, num_validation=0, num_test=0, verify="execute")
    rows = list(generated_rows(opts, "train", 0, 6))
    after_siblings = [r for r in rows if r["python_source"].count("@wp.kernel") > 1]
    assert after_siblings and all(r["compiled"] and r["executed"] for r in rows)
    assert _check(after_siblings) == []
