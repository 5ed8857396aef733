"""real's splits: held-out packages in test, training packages in train, the rest by module, near-copies together;
and the check that finds a near-copy across splits on the rows of any folder."""

from __future__ import annotations

import json
import re
from collections import Counter

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from builder.checks.splits import SplitIsolation
from builder.shipped import splits
from builder.shipped.modules import ShippedModule, modules
from builder.shipped.overlap import shingles, similarity
from builder.shipped.packages import PACKAGES, SOURCES
from builder.shipped.splits import (
    GROUPS_FILE,
    POLICY,
    SplitPolicy,
    cross_split_pairs,
    group,
    group_of,
    kernel_defs,
    module_split,
    near_pairs,
    own_kernel,
    recorded,
)

KERNEL = """@wp.kernel
def scale(a: wp.array(dtype=float), b: wp.array(dtype=float), s: float):
    i = wp.tid()
    b[i] = a[i] * s + wp.sin(a[i]) - wp.cos(b[i]) * 2.0
"""
RENAMED = KERNEL.replace("scale", "k0").replace("a[", "x[").replace("a:", "x:").replace("2.0", "3.5")
OTHER = """@wp.kernel
def k1(q: wp.array(dtype=wp.vec3)):
    tid = wp.tid()
    q[tid] = wp.normalize(q[tid])
"""
# kernels the static scan finds per package and split, with the recorded grouping (python -m builder.shipped.splits)
PINNED = {
    ("gswarp", "train"): 42,
    ("mink-warp", "train"): 55,
    ("mujoco-warp", "test"): 75,
    ("mujoco-warp", "train"): 364,
    ("mujoco-warp", "validation"): 18,
    ("newton", "test"): 355,
    ("newton", "train"): 1503,
    ("newton", "validation"): 268,
    ("nvalchemi-toolkit-ops", "test"): 621,
    ("skrl", "train"): 76,
    ("warp-jsb", "train"): 7,
    ("warp-lang", "test"): 394,
    ("warp-lang", "train"): 2164,
    ("warp-lang", "validation"): 159,
    ("warp-nn", "test"): 39,
    ("warpsphboundaries", "train"): 38,
    ("warpsphcore", "train"): 40,
}


def test_each_package_has_one_role_and_held_out_packages_are_the_unborrowed_ones():
    roles = {p.distribution: group_of(p) for p in PACKAGES}
    assert {d for d, r in roles.items() if r == "held-out"} == {"nvalchemi-toolkit-ops", "warp-nn"}
    assert {d for d, r in roles.items() if r == "in-project"} == {"warp-lang", "newton", "mujoco-warp"}
    assert all(
        r == "train-only"
        for d, r in roles.items()
        if next(p for p in PACKAGES if p.distribution == d).use == "training"
    )


def test_module_splits_follow_the_shares_by_a_stable_key():
    mods = modules()
    by_role: dict[str, Counter] = {}
    for m in mods:
        by_role.setdefault(group_of(m.package), Counter())[module_split(m)] += 1
    assert set(by_role["held-out"]) == {"test"} and set(by_role["train-only"]) == {"train"}
    split = by_role["in-project"]
    total = sum(split.values())
    assert abs(split["train"] / total - 0.8) < 0.05 and abs(split["test"] / total - 0.1) < 0.03, split
    # the key is (package, module path) alone: the same module lands in the same split in any selection
    newton = [m for m in mods if m.package.distribution == "newton"]
    assert [module_split(m) for m in newton] == [module_split(m) for m in modules(("newton",))]


@pytest.mark.parametrize(
    "shares", [(("train", 80), ("validation", 10)), (("train", 80), ("validation", 10), ("test", 20))]
)
def test_a_bad_policy_fails_on_construction(shares):
    with pytest.raises(ValueError, match="shares must give each of"):
        SplitPolicy(shares=shares)


def test_near_pairs_find_renamed_copies_and_own_kernel_cuts_the_row_kernel():
    pairs = near_pairs([("a", KERNEL), ("b", RENAMED), ("c", OTHER)], 0.8)
    assert pairs == [("a", "b", 1.0)]
    source = "import warp as wp\n\n\n@wp.func\ndef f(x: float):\n    return x\n\n\n" + KERNEL
    assert own_kernel(source, "scale") == KERNEL
    kernels = {"a": ("train", KERNEL), "b": ("test", RENAMED), "c": ("test", OTHER)}
    assert cross_split_pairs(kernels) == [("a", "b", 1.0)]


def _real_kernel(path: str, name: str) -> tuple[ShippedModule, str, str]:
    mod = next(m for m in modules(("warp-lang",)) if m.path == path)
    found = next(k for k in kernel_defs(mod) if f"def {name}(" in k.text)
    return mod, found.source_path, found.text


def test_the_near_copy_measure_sees_planted_edits_of_a_real_kernel():
    # warp's fluid checkpoint examples: the same jacobi_iter but for a decorator argument; the order-of-first-
    # appearance measure scored them 0.10 and they straddled train and test
    mod, path, text = _real_kernel("warp/examples/optim/example_fluid_checkpoint.py", "jacobi_iter")
    other, other_path, copy = _real_kernel(
        "warp/examples/optim/example_fluid_checkpoint_custom_backward.py", "jacobi_iter"
    )
    assert "enable_backward=False" in copy and "enable_backward=False" not in text
    assert near_pairs([("a", text), ("b", copy)], POLICY.near_jaccard), "the decorator-argument copy"
    assert recorded().split_of(mod, path) == recorded().split_of(other, other_path)
    # planted edits of a longer real kernel, each alone
    _, _, base = _real_kernel("warp/examples/core/example_dem.py", "apply_forces")
    lines = base.splitlines(True)
    body = [n for n, ln in enumerate(lines) if ln.startswith("    ") and "=" in ln and "def " not in ln]
    swapped = lines[:]
    swapped[body[0]], swapped[body[1]] = swapped[body[1]], swapped[body[0]]
    number = re.search(r"\b\d+\.\d+\b", base)
    param = re.search(r"def \w+\(\s*(\w+):", base).group(1)
    edits = {
        "decorator argument": base.replace("@wp.kernel\n", "@wp.kernel(enable_backward=False)\n", 1),
        "parameter renamed": re.sub(rf"\b{param}\b", param + "_renamed", base),
        "statements swapped": "".join(swapped),
        "constant changed": base[: number.start()] + "7.25" + base[number.end() :] if number else base + "\n",
    }
    for what, edited in edits.items():
        assert edited != base, what
        pairs = near_pairs([("base", base), ("edit", edited)], POLICY.near_jaccard)
        assert pairs and pairs[0][:2] == ("base", "edit"), (what, similarity(shingles(base), shingles(edited)))
    # and two different kernels of one module stay apart
    _, _, integrate = _real_kernel("warp/examples/core/example_dem.py", "integrate")
    assert not near_pairs([("a", base), ("b", integrate)], POLICY.near_jaccard)


def test_the_scan_finds_decorated_nested_and_wp_kernel_made_kernels(tmp_path, monkeypatch):
    mod = next(m for m in modules(("warp-jsb",)))
    text = "import warp as wp\n\n\n" + KERNEL + "\n\ndef make():\n    @wp.kernel(enable_backward=False)\n"
    text += "    def inner(a: wp.array(dtype=float)):\n        a[wp.tid()] = 1.0\n\n    return inner\n\n\n"
    text += "def plain(a: wp.array(dtype=float)):\n    a[wp.tid()] = 2.0\n\n\nk = wp.Kernel(plain, key='k')\n\n\n"
    # a plain def made a kernel by a wp.kernel(...) call inside a function (warp's test_codegen_instancing.py)
    text += "def build():\n    def _template(a: wp.array(dtype=float)):\n        a[wp.tid()] = 3.0\n\n"
    text += "    return wp.kernel(_template, module='unique')\n"
    file = tmp_path / "m.py"
    file.write_text(text)
    monkeypatch.setattr(type(mod), "file", lambda self: file)
    kernel_defs.cache_clear()
    try:
        found = kernel_defs(mod)
    finally:
        kernel_defs.cache_clear()
    assert [k.source_path.rsplit(":", 1)[1] for k in found] == ["4", "11", "18", "26"]
    assert found[1].text.startswith("@wp.kernel(enable_backward=False)\ndef inner(")
    assert found[2].text.startswith("@wp.kernel\ndef plain(")
    assert found[3].text.startswith("@wp.kernel\ndef _template(")


def test_a_kernel_made_by_a_wp_kernel_call_is_grouped_with_its_equal_in_warp():
    # validate on the whole real build found this pair across splits: _make_kernel_with_empty_cell's _template
    # (a plain def handed to wp.kernel(...)) and create_kernel_closure's k, equal once normalized
    mod = next(m for m in modules(("warp-lang",)) if m.path == "warp/tests/test_codegen_instancing.py")
    found = {k.source_path: k for k in kernel_defs(mod)}
    template = next(p for p, k in found.items() if "def _template(" in k.text)
    closure = "warp/tests/test_codegen_instancing.py:707"
    assert near_pairs([("t", found[template].text), ("k", found[closure].text)], 0.8)
    assert recorded().split_of(mod, template) == recorded().split_of(mod, closure) == "train"


@pytest.mark.slow
def test_the_recorded_grouping_is_what_grouping_gives_now_and_counts_are_pinned():
    mods = tuple(modules())
    fresh = group(mods)
    assert fresh.to_json() == json.loads(GROUPS_FILE.read_text()), "python -m builder.shipped.splits --write"
    got = Counter()
    for m in mods:
        for k in kernel_defs(m):
            got[(m.package.distribution, fresh.split_of(m, k.source_path))] += 1
    assert dict(got) == PINNED
    assert set(SOURCES) and fresh.kernels == sum(PINNED.values())


def _table(rows: list[dict]) -> pa.Table:
    return pa.Table.from_pylist(rows)


def _row(rid: str, split: str, path: str, source: str, group: str = "in-project") -> dict:
    return {
        "id": rid,
        "split": split,
        "source_path": path,
        "split_group": group,
        "kernel_name": "k",
        "python_source": source,
    }


def test_the_check_fails_naming_a_near_copy_across_splits_and_passes_a_clean_folder():
    train = _table([_row("real/train/m:scale/cpu", "train", "m.py:3", "import warp as wp\n\n\n" + KERNEL)])
    clean = {"train": train, "test": _table([_row("real/test/n:k1/cpu", "test", "n.py:3", OTHER)])}
    assert SplitIsolation().check("real", clean).status == "pass"
    planted = {"train": train, "test": _table([_row("real/test/n:k0/cpu", "test", "n.py:9", RENAMED)])}
    result = SplitIsolation().check("real", planted)
    assert result.status == "fail" and "real/train/m:scale/cpu (train) ~ real/test/n:k0/cpu (test)" in result.message
    held = {"train": _table([_row("real/train/w:k1/cpu", "train", "w.py:3", OTHER, "held-out")])}
    assert "a held-out row in train" in SplitIsolation().check("real", held).message
    twice = {**clean, "validation": _table([_row("real/validation/m:scale/cuda", "validation", "m.py:3", KERNEL)])}
    assert "m.py:3 is in train and validation" in SplitIsolation().check("real", twice).message


@pytest.mark.slow
def test_validate_fails_on_a_folder_with_a_planted_copy_across_splits(tmp_path):
    from builder.cli import main

    out = tmp_path / "d"
    assert (
        main(["build", "--configs", "real", "--real-sources", "warp-jsb", "--verify", "none", "--out", str(out)]) == 0
    )
    assert splits.recorded().kernels > 0
    train = pq.read_table(next((out / "real").glob("train-*.parquet")))
    copy = train.slice(0, 1).to_pylist()[0]
    copy |= {"id": copy["id"].replace("/train/", "/test/"), "split": "test", "source_path": "elsewhere.py:1"}
    pq.write_table(pa.Table.from_pylist([copy], schema=train.schema), out / "real" / "test-00000-of-00001.parquet")
    from builder.validate import validate

    isolation = next(r for r in validate(out, fidelity_sample=0).checks if r.name == "split_isolation")
    assert isolation.status == "fail" and copy["id"] in isolation.message, isolation.message
