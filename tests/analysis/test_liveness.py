"""Liveness of small hand-written Warp kernels whose dead assignments and unused parameters are known."""

import pytest

from builder.analysis.liveness import Liveness, liveness


def test_dead_chain_and_unused_param():
    lv = liveness(
        """
import warp as wp

@wp.kernel
def k(a: wp.array(dtype=float), b: wp.array(dtype=float), scale: float):
    i = wp.tid()
    x = a[i] * 2.0
    y = x + 1.0
    z = y * y
    b[i] = a[i]
"""
    )
    assert (lv.assignments, lv.dead, lv.params, lv.unused) == (4, 3, 3, 1)
    assert lv.dead_names == ("k.x", "k.y", "k.z")
    assert lv.unused_params == ("k.scale",)
    assert lv.dead_share == pytest.approx(0.75)
    assert lv.unused_share == pytest.approx(1 / 3)


def test_value_used_only_through_branch_guard_is_live():
    lv = liveness(
        """
import warp as wp

@wp.kernel
def k(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    t = a[i] - 0.5
    flag = t > 0.0
    if flag:
        out[i] = 1.0
    u = a[i] * 3.0
    if u > 1.0:
        w = 2.0
"""
    )
    # u guards only a dead assignment, so u and w are dead; t and flag guard a store
    assert (lv.assignments, lv.dead) == (5, 2)
    assert lv.dead_names == ("k.u", "k.w")


def test_loop_carried_update_dead_unless_read():
    lv = liveness(
        """
import warp as wp

@wp.kernel
def k(a: wp.array(dtype=float), out: wp.array(dtype=float), n: int):
    i = wp.tid()
    s = float(0.0)
    c = int(0)
    for j in range(n):
        s = s + a[j]
        c = c + 1
        c += 2
    out[i] = s
"""
    )
    assert (lv.assignments, lv.dead, lv.unused) == (6, 3, 0)
    assert lv.dead_names == ("k.c",)


def test_atomic_and_effectful_assignment_are_live():
    lv = liveness(
        """
import warp as wp

@wp.kernel
def k(a: wp.array(dtype=float), total: wp.array(dtype=float), hits: wp.array(dtype=int)):
    i = wp.tid()
    v = a[i] * a[i]
    wp.atomic_add(total, 0, v)
    old = hits.atomic_add(0, 1)
    spare = v + 1.0
"""
    )
    assert (lv.assignments, lv.dead, lv.params, lv.unused) == (4, 1, 3, 0)
    assert lv.dead_names == ("k.spare",)


def test_return_in_func_and_helper_called_as_statement():
    lv = liveness(
        """
import warp as wp

@wp.func
def square_plus(x: float, unused_bias: float):
    y = x * x
    z = y + 1.0
    q = x - 1.0
    return z

@wp.func
def bump(arr: wp.array(dtype=float), i: int, v: float):
    arr[i] = arr[i] + v

@wp.kernel(enable_backward=False)
def k(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    v = square_plus(a[i], 0.0)
    bump(out, i, v)
    r = square_plus(v, 1.0)
"""
    )
    # square_plus: y, z live, q dead; k: i, v live, r dead (square_plus has no effect)
    assert (lv.assignments, lv.dead) == (6, 2)
    assert lv.dead_names == ("square_plus.q", "k.r")
    assert lv.unused_params == ("square_plus.unused_bias",)
    assert lv.params == 2 + 3 + 2


def test_struct_field_store_and_local_component_stores():
    lv = liveness(
        """
import warp as wp

@wp.struct
class State:
    x: wp.array(dtype=wp.vec3)
    count: int

@wp.kernel
def k(s: State, out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    p = wp.vec3(0.0)
    p[0] = 1.0
    p.y = 2.0
    out[i] = p
    q = wp.vec3(0.0)
    q[1] = 3.0
    xs = s.x
    xs[i] = q
    m = wp.mat22(0.0)
    m[0, 1] = 1.0
"""
    )
    # xs aliases the struct's array: storing through it is an output, so q is live; m is a dead local
    assert (lv.assignments, lv.dead) == (9, 2)
    assert lv.dead_names == ("k.m",)


def test_tile_store_is_a_sink():
    lv = liveness(
        """
import warp as wp

TILE = wp.constant(8)

@warp.kernel
def k(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float)):
    i, j = wp.tid()
    t = wp.tile_load(a, shape=(TILE, TILE), offset=(i * TILE, j * TILE))
    u = t * 2.0
    wp.tile_store(b, u, offset=(i * TILE, j * TILE))
    v = wp.tile_zeros(shape=(TILE, TILE), dtype=float)
"""
    )
    assert (lv.assignments, lv.dead, lv.unused) == (4, 1, 0)
    assert lv.dead_names == ("k.v",)


def test_non_warp_functions_and_stubs_are_ignored():
    lv = liveness(
        """
import warp as wp

def host(a, b):
    x = 1

@wp.func_native(snippet="return 0;")
def native(x: int) -> int: ...

@wp.func
def decl(x: float) -> float:
    ...
"""
    )
    assert lv == Liveness(0, 0, 0, 0)
    assert lv.dead_share == 0.0 and lv.unused_share == 0.0


def test_early_return_guard_is_live():
    lv = liveness(
        """
import warp as wp

@wp.kernel
def k(a: wp.array(dtype=float), n: int):
    i = wp.tid()
    if i >= n:
        return
    a[i] = 0.0
"""
    )
    assert (lv.assignments, lv.dead, lv.unused) == (1, 0, 0)


def test_invalid_counts_rejected():
    with pytest.raises(ValueError, match="dead=3"):
        Liveness(2, 3, 0, 0)
    with pytest.raises(ValueError, match="unused_params"):
        Liveness(0, 0, 2, 1)


def test_stores_through_slices_and_globals_are_outputs():
    lv = liveness(
        """
import warp as wp

@wp.kernel
def k(x: wp.array(dtype=float), y: wp.array2d(dtype=float)):
    i = wp.tid()
    row = y[0:1, :]
    v = 2.0 * x[i]
    row[0, i] = v
    wp.adjoint[x][i] = 0.0
    e = y[0, i]
    e += 1.0
"""
    )
    # row is a view of y, so v is live; e is a copied element, so both of its assignments are dead
    assert (lv.assignments, lv.dead) == (5, 2)
    assert lv.dead_names == ("k.e",)


def test_parameter_read_only_by_dead_statements_is_idle():
    lv = liveness(
        """
import warp as wp

@wp.kernel
def k(a: wp.array(dtype=float), scale: float, bias: float, n: int, out: wp.array(dtype=float)):
    i = wp.tid()
    s = a[i] * scale
    for j in range(n):
        out[i] = out[i] + a[j]
"""
    )
    assert lv.unused_params == ("k.bias",)
    assert lv.idle_params == ("k.scale",)
    assert lv.dead_names == ("k.s",)
    assert lv.ineffective_share == pytest.approx(2 / 5)
