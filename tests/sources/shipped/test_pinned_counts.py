"""Kernels collected per source from each pinned package, counted on a fixed sample of its modules: a regression
that silently drops shipped kernels (a hidden package made every warp-lang test module fail to import, and the whole
config fell from 3,036 kernels to 331 while every other test passed) fails here with the reasons it counted.

The sample (every k-th module of each source, ``STRIDE``) keeps each package near a minute; the whole config's
counts are in docs/real.md. After a package upgrade, re-pin from the failure message.
"""

from __future__ import annotations

import pytest

from builder.build_options import BuildOptions
from builder.shipped.packages import BY_DISTRIBUTION, select
from builder.sources.shipped.rows import Sample, Summary, shipped_rows

# package -> ({source: stride}, {source: kernels in that sample}), at the versions builder/shipped/packages.py pins
PINNED: dict[str, tuple[dict[str, int], dict[str, int]]] = {
    "warp-lang": ({"tests": 16, "library": 8, "examples": 8}, {"tests": 155, "library": 40, "examples": 20}),
    "newton": (
        {"newton/examples": 16, "newton/library": 16, "newton/tests": 16},
        {"newton/examples": 10, "newton/library": 104, "newton/tests": 19},
    ),
    "mujoco-warp": (
        {"mujoco-warp/library": 4, "mujoco-warp/tests": 4},
        {"mujoco-warp/library": 42, "mujoco-warp/tests": 6},
    ),
    "nvalchemi-toolkit-ops": ({"nvalchemi-toolkit-ops/library": 8}, {"nvalchemi-toolkit-ops/library": 62}),
    "warp-nn": ({"warp-nn/library": 2}, {"warp-nn/library": 17}),
    # the training packages (real's train split): every module (they are small). skrl's 59 generic kernels are
    # collected through their float32 instance (shipped_names.derive_overload); 29 of warpsphcore's 32 through an
    # instance with the structs its dispatch passes (Package.struct_instances), and 36 of its 37 read helpers its star
    # imports bring (shipped_names.star_bound)
    "gswarp": ({"gswarp/library": 1}, {"gswarp/library": 39}),
    "warpsphcore": ({"warpsphcore/library": 1}, {"warpsphcore/library": 37}),
    "skrl": ({"skrl/library": 1}, {"skrl/library": 76}),
    "warp-jsb": ({"warp-jsb/library": 1}, {"warp-jsb/library": 5}),
    # one left out: it equals a real kernel (Package.leave_out)
    "mink-warp": ({"mink-warp/library": 1}, {"mink-warp/library": 54}),
    # 11 generic kernels with no float32 instance Warp generates code for
    "warpsphboundaries": ({"warpsphboundaries/library": 1}, {"warpsphboundaries/library": 27}),
}
SLACK = 0.02  # a share of each source's kernels: Warp may start or stop emitting one or two kernels


def test_every_package_and_source_is_pinned():
    assert set(PINNED) == set(BY_DISTRIBUTION)
    for pkg, (stride, pinned) in PINNED.items():
        assert set(stride) == set(pinned) == set(select((pkg,))), pkg


@pytest.mark.slow
@pytest.mark.parametrize("package", list(PINNED))
def test_kernels_collected_per_source_are_pinned(package):
    stride, pinned = PINNED[package]
    summary = Summary()
    for _ in shipped_rows(BuildOptions("real", real_sources=package, verify="none"), Sample(stride=stride), summary):
        pass
    got = dict(summary.kernels)
    off = {s: (got.get(s, 0), n) for s, n in pinned.items() if abs(got.get(s, 0) - n) > max(2, SLACK * n)}
    assert not off, "kernels per source (got, pinned): " + repr(off) + "\n" + "\n".join(summary.lines())
