"""A predicted Warp module's kernel is matched to the row's signature as Warp spells it (``splice_run``)."""

from __future__ import annotations

import pytest

from builder.warp_backend import codegen, splice_run

SOURCE = """import warp as wp


@wp.struct
class Params:
    scale: float


@wp.kernel
def scale(values: wp.array(dtype=float), params: Params):
    i = wp.tid()
    values[i] = values[i] * params.scale
"""


@pytest.fixture(scope="module")
def namespace():
    module, ns = splice_run._load(SOURCE, None, False)
    yield ns
    codegen.release(module)


def test_a_struct_argument_matches_by_name_whatever_module_spelled_it(namespace):
    # a generated row's struct is spelled with the module its source was loaded as, a real row's with its package's
    for struct in ("wcir_eval_0123456789ab.Params", "pkg.sub.Params", "Params"):
        kernel = splice_run.predicted_kernel(
            namespace, "scale", ["values", "params"], ["array(ndim=1, dtype=float32)", struct]
        )
        assert kernel.key == "scale"


@pytest.mark.parametrize(
    "names, types, message",
    [
        (["values", "p"], ["array(ndim=1, dtype=float32)", "Params"], "argument names"),
        (["values", "params"], ["array(ndim=1, dtype=float64)", "Params"], "argument types"),
        (["values", "params"], ["array(ndim=1, dtype=float32)", "Other"], "argument types"),
    ],
)
def test_other_names_or_types_are_a_signature_mismatch(namespace, names, types, message):
    with pytest.raises(splice_run.SignatureMismatch, match=message):
        splice_run.predicted_kernel(namespace, "scale", names, types)
    with pytest.raises(splice_run.SignatureMismatch, match="no @wp.kernel named 'other'"):
        splice_run.predicted_kernel(namespace, "other", names, types)
