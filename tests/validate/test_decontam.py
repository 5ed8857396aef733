"""The decontamination check fails on a real kernel that a generated program or a real-train kernel reproduces,
exactly or renamed."""

import pyarrow as pa

from builder.validate.decontam import NEAR_FAIL_SHARE, Decontamination

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
        result = Decontamination().run(tables)
        assert result.status == "fail" and result.offenders == ["real/test/m:scale/cpu"], result.message
    clean = {"real": real, "cpu": _tables([("cpu/train/0/1", OTHER)], "train")}
    result = Decontamination().run(clean)
    assert result.status == "pass" and "0 equal sources, 0 equal normalized forms" in result.message
    assert NEAR_FAIL_SHARE < 0.05


def test_without_a_generated_config_it_is_skipped():
    result = Decontamination().run({"real": _tables([("r", REAL)], "test")})
    assert result.status == "skip"


def test_a_real_train_kernel_that_copies_a_real_one_fails_and_real_train_alone_is_no_evaluation_side():
    # real-train is trained on: another package that ships a copy of a real kernel must not be in it
    real = _tables([("real/test/m:scale/cpu", REAL)], "test")
    copied = _tables([("real-train/train/p:k/cpu", RENAMED), ("real-train/train/p:n/cpu", OTHER)], "train")
    result = Decontamination().run({"real": real, "real-train": copied})
    assert result.status == "fail" and result.offenders == ["real/test/m:scale/cpu"], result.message
    assert "distinct training ones (real-train)" in result.message
    alone = Decontamination().run({"real-train": copied, "cpu": _tables([("cpu/train/0/0", REAL)], "train")})
    assert alone.status == "skip"  # no evaluation set in the folder: nothing to keep clean
