"""The host code's pure parts: layout, output format, and the units it wraps (no compiler needed)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from builder.standalone import host, toolchain


@given(st.lists(st.integers(0, 5000), max_size=12))
def test_layout_is_aligned_and_disjoint(sizes):
    offsets = host.layout(sizes)
    assert all(o % host.ALIGN == 0 for o in offsets)
    ends = [o + n for o, n in zip(offsets, sizes)]
    assert all(end <= nxt for end, nxt in zip(ends, offsets[1:]))


@given(
    st.lists(
        st.tuples(
            st.sampled_from(["a", "b_out", "phi"]),
            st.sampled_from(["float32", "float64", "int32", "uint32"]),
            st.lists(st.floats(-1e6, 1e6, allow_nan=False, width=32), max_size=6),
        ),
        max_size=3,
        unique_by=lambda t: t[0],
    )
)
def test_expected_output_parses_back_exactly(outputs):
    import numpy as np

    outputs = [(n, s, [int(v) if s.endswith("int32") else v for v in vals]) for n, s, vals in outputs]
    parsed = host.parse_output(host.expected_output(outputs))
    assert sorted(parsed) == sorted(n for n, _, _ in outputs)
    for name, scalar, values in outputs:
        # each value comes back as the same value of its own type (%.9g is exact for float32, not for float64)
        cast = np.float32 if scalar == "float32" else float
        assert [cast(v) for v in parsed[name]] == [cast(v) for v in values]


def test_printf_formats_round_trip_the_scalar_types():
    # %.9g is the shortest format that gives back every float32, %.17g every float64
    import numpy as np

    x32 = np.float32(0.1) + np.float32(1e-8)
    assert np.float32(float(host.PRINT["float32"][1] % float(x32))) == x32
    assert float(host.PRINT["float64"][1] % (1 / 3)) == 1 / 3


def test_unit_without_the_no_crt_line_is_refused():
    with pytest.raises(host.HostError, match="WP_NO_CRT"):
        host.standalone_unit('#include "builtin.h"\n')


def test_makefile_and_build_commands_share_the_flags():
    text = host.makefile("k")
    for flag in (*toolchain.CXX_FLAGS, *toolchain.NVCC_FLAGS):
        assert flag in text
    assert "$(WARP_NATIVE)/crt.cpp" in text and "WARP_NATIVE ?=" in text
    assert toolchain.gxx_command("a.cpp", "a", "N").split() == toolchain._cmd(
        "g++", toolchain.CXX_FLAGS, "a.cpp", "a", "N"
    )
