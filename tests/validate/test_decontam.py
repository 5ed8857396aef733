"""The decontamination check fails on a kernel of real's validation or test split that a generated program
reproduces, exactly or renamed."""

import pyarrow as pa

from builder.checks.base import Context
from builder.checks.decontamination import NEAR_FAIL_SHARE, Decontamination

REAL = """import warp as wp


@wp.kernel
def scale(a: wp.array(dtype=float), b: wp.array(dtype=float), s: float):
    i = wp.tid()
    b[i] = a[i] * s + wp.sin(a[i]) - wp.cos(b[i]) * 2.0
"""
RENAMED = REAL.replace("scale", "k0").replace("a[", "x[").replace("a:", "x:").replace("2.0", "3.5")
OTHER = """import warp as wp


@wp.kernel
def k1(q: wp.array(dtype=wp.vec3)):
    tid = wp.tid()
    q[tid] = wp.normalize(q[tid])
"""


def _tables(pairs: list[tuple[str, str]], split: str) -> dict[str, pa.Table]:
    return {split: pa.table({"id": [i for i, _ in pairs], "python_source": [s for _, s in pairs]})}


def test_a_generated_program_equal_to_a_real_kernel_fails():
    real = _tables([("real/test/m:scale/cpu", REAL)], "test")
    for generated in (REAL, RENAMED):  # equal source; equal normalized form (identifiers and literals renamed)
        tables = {"real": real, "cpu": _tables([("cpu/train/0/0", generated), ("cpu/train/0/1", OTHER)], "train")}
        result = Decontamination().run(Context(tables))
        assert result.status == "fail" and result.offenders == ["real/test/m:scale/cpu"], result.message
    clean = {"real": real, "cpu": _tables([("cpu/train/0/1", OTHER)], "train")}
    result = Decontamination().run(Context(clean))
    assert result.status == "pass" and "0 equal sources, 0 equal normalized forms" in result.message
    assert NEAR_FAIL_SHARE < 0.05


def test_without_a_generated_config_it_is_skipped():
    result = Decontamination().run(Context({"real": _tables([("r", REAL)], "test")}))
    assert result.status == "skip"


def test_reals_evaluation_splits_are_checked_and_its_train_split_is_not():
    # real's train split is trained on, like the generated configs: only validation and test are kept clean here
    # (within real, near-copies never straddle the splits: builder.checks.splits)
    tables = {
        "real": {
            **_tables([("real/train/m:scale/cpu", REAL)], "train"),
            **_tables([("real/test/m:n/cpu", OTHER)], "test"),
        },
        "cpu": _tables([("cpu/train/0/0", REAL)], "train"),
    }
    result = Decontamination().run(Context(tables))
    assert result.status == "pass" and "1 distinct real sources" in result.message, result.message
    validation = {
        **tables,
        "real": {**tables["real"], **_tables([("real/validation/m:scale/cpu", REAL)], "validation")},
    }
    result = Decontamination().run(Context(validation))
    assert result.status == "fail" and result.offenders == ["real/validation/m:scale/cpu"], result.message
    alone = Decontamination().run(
        Context({"real": _tables([("real/train/m:scale/cpu", REAL)], "train"), "cpu": tables["cpu"]})
    )
    assert alone.status == "skip"  # no evaluation split in the folder: nothing to keep clean
