"""Which split each written kernel of ``real`` is in: whole packages held out, the others split by module, near-copies
kept together.

- A held-out package (``Package.held_out``) goes entirely to ``test``: transfer to a project no model has seen.
- A training package (``use="training"``) goes entirely to ``train``.
- Every other package is split by module (source file), ``SplitPolicy.shares`` (80 / 10 / 10), by a stable hash of
  (package, module path): a kernel's split never changes when other packages are added.
- Near-copies stay together: kernels whose own ``def`` (decorators included) is equal once normalized or a near
  duplicate (``builder.shipped.overlap.similarity`` >= ``near_jaccard``: token 5-grams, names kept or all one
  class) form one group, which goes to the split of its first member: a held-out package's member first, then by
  (package order, module path, line). A training package's kernel in a group that is not in ``train`` is left
  out, so no training package reaches an evaluation split and no evaluation kernel has a copy in ``train``.

The kernels are found without importing anything (the ``def``s decorated ``@wp.kernel`` and the functions handed to
``wp.Kernel(...)``), keyed by ``source_path`` (``file:line`` of the first decorator), as the rows are; a kernel the
build finds that this scan did not (made some other way) takes its module's split. ``validate`` checks the rows
themselves with the same measure (``cross_split_pairs``).
"""

from __future__ import annotations

import ast
import json
import textwrap
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from builder.rng import SPLITS, stable_int
from builder.shipped.modules import ShippedModule
from builder.shipped.overlap import NearIndex, normalized_sha256, shingles, similarity
from builder.shipped.packages import PACKAGES, SOURCES, Package

GROUPS = ("in-project", "held-out", "train-only")  # the ``split_group`` column: what a row's package is to the splits


@dataclass(frozen=True)
class SplitPolicy:
    shares: tuple[tuple[str, int], ...] = (("train", 80), ("validation", 10), ("test", 10))  # percent per split
    near_jaccard: float = 0.8  # the decontamination measure's threshold (builder.checks.decontamination reads it)
    salt: str = "real-split-v1"  # part of the module hash: a new salt is a new split, never a silent one

    def __post_init__(self) -> None:
        if tuple(s for s, _ in self.shares) != SPLITS or sum(p for _, p in self.shares) != 100:
            raise ValueError(f"shares must give each of {SPLITS} a percentage, summing to 100: {self.shares}")


POLICY = SplitPolicy()


def group_of(pkg: Package) -> str:
    """What a package is to the splits: held out whole (test), training only (train), or split by module."""
    if pkg.use == "training":
        return "train-only"
    return "held-out" if pkg.held_out else "in-project"


def module_split(mod: ShippedModule, policy: SplitPolicy = POLICY) -> str:
    """The split of a module's kernels before near-copies are grouped."""
    group = group_of(mod.package)
    if group != "in-project":
        return "test" if group == "held-out" else "train"
    point = stable_int(policy.salt, mod.package.distribution, mod.path) % 100
    for split, share in policy.shares:
        if point < share:
            return split
        point -= share
    raise AssertionError("shares sum to 100")


@dataclass(frozen=True)
class KernelDef:
    source_path: str  # file:line of its first decorator, as the row's source_path
    module: ShippedModule
    text: str  # the def, dedented, decorators included (``@wp.kernel`` added to a plain function made a kernel)


@cache
def kernel_defs(mod: ShippedModule) -> tuple[KernelDef, ...]:
    """The kernels a module defines, found in its syntax tree (nested ones included), in source order."""
    text = mod.file().read_text(encoding="utf-8", errors="replace")
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return ()
    lines = text.splitlines(True)
    # plain functions made kernels by a call, at any depth: wp.Kernel(f, ...) and wp.kernel(f, ...) (as
    # warp/tests/test_codegen_instancing.py does inside a function); missing one leaves it its module's split
    # while an equal kernel elsewhere is grouped into another
    made = {
        c.args[0].id
        for c in ast.walk(tree)
        if isinstance(c, ast.Call)
        and _called_name(c.func) in ("Kernel", "kernel")
        and c.args
        and isinstance(c.args[0], ast.Name)
    }
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef):
            continue
        decorated = any(_decorator_name(d) == "kernel" for d in node.decorator_list)
        if not decorated and node.name not in made:
            continue
        first = min([node.lineno] + [d.lineno for d in node.decorator_list])
        own = textwrap.dedent("".join(lines[first - 1 : node.end_lineno]))
        out.append(KernelDef(f"{mod.path}:{first}", mod, own if decorated else "@wp.kernel\n" + own))
    return tuple(sorted(out, key=lambda k: int(k.source_path.rsplit(":", 1)[1])))


def _called_name(node: ast.expr) -> str:
    return node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")


def _decorator_name(node: ast.expr) -> str:
    return _called_name(node.func if isinstance(node, ast.Call) else node)


def own_kernel(python_source: str, kernel_name: str) -> str:
    """A row's own kernel ``def`` out of its stand-alone source: the def named ``kernel_name``, else the last def
    decorated ``@wp.kernel`` (a nested kernel whose key is no identifier keeps its def's name)."""
    try:
        tree = ast.parse(python_source)
    except SyntaxError:
        return python_source
    lines = python_source.splitlines(True)
    defs = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    named = [n for n in defs if n.name == kernel_name]
    kernels = named or [n for n in defs if any(_decorator_name(d) == "kernel" for d in n.decorator_list)]
    if not kernels:
        return python_source
    node = kernels[-1]
    first = min([node.lineno] + [d.lineno for d in node.decorator_list])
    return "".join(lines[first - 1 : node.end_lineno])


def near_pairs(items: Iterable[tuple[str, str]], threshold: float, num_perm: int = 128) -> list[tuple[str, str, float]]:
    """``(a, b, similarity)`` for every pair of ``(key, text)`` items whose texts are equal once normalized (1.0) or
    near duplicates (``overlap.similarity`` >= ``threshold``, candidates from MinHash LSH); ``a < b``, sorted."""
    items = sorted(set(items))
    by_norm: dict[str, list[str]] = {}
    seen: dict[str, object] = {}
    index = NearIndex(threshold, num_perm)
    for key, text in items:
        by_norm.setdefault(normalized_sha256(text), []).append(key)
        seen[key] = shingles(text)
        index.insert(key, seen[key])
    pairs: dict[tuple[str, str], float] = {}
    for keys in by_norm.values():
        for other in keys[1:]:
            pairs[(keys[0], other)] = 1.0
    for key, _ in items:
        mine = seen[key]
        for other in index.query(mine):
            if other <= key or (key, other) in pairs:
                continue
            if (sim := similarity(mine, seen[other])) >= threshold:
                pairs[(key, other)] = round(sim, 4)
    return sorted((a, b, s) for (a, b), s in pairs.items())


@dataclass
class Assignment:
    """The split of the kernels that near-copy grouping moved off their module's split (``source_path`` -> split),
    the training kernels it left out, and what grouping did; every other kernel takes its module's split."""

    moved: dict[str, str] = field(default_factory=dict)
    left_out: dict[str, str] = field(default_factory=dict)  # source_path -> why (a training kernel near an eval one)
    kernels: int = 0  # kernels grouped
    groups: int = 0  # groups of two or more kernels

    def split_of(self, mod: ShippedModule, source_path: str) -> str | None:
        """The split of a kernel of ``mod`` at ``source_path``; None when it is left out."""
        if source_path in self.left_out:
            return None
        return self.moved.get(source_path) or module_split(mod)

    def to_json(self) -> dict:
        return {
            "policy": {"shares": dict(POLICY.shares), "near_jaccard": POLICY.near_jaccard, "salt": POLICY.salt},
            "kernels": self.kernels,
            "groups": self.groups,
            "moved": dict(sorted(self.moved.items())),
            "left_out": dict(sorted(self.left_out.items())),
        }


# The groups span packages, so they are computed once over every package (``group``, with every package installed:
# ``python -m builder.shipped.splits --write``) and kept here: a build of some packages puts each kernel where a
# build of all of them does. tests/shipped/test_splits.py fails when this file is not what grouping gives now.
GROUPS_FILE = Path(__file__).with_name("split_groups.json")


@cache
def recorded() -> Assignment:
    """The grouping of every package, as ``GROUPS_FILE`` records it."""
    data = json.loads(GROUPS_FILE.read_text())
    return Assignment(data["moved"], data["left_out"], data["kernels"], data["groups"])


def assign(mods: tuple[ShippedModule, ...]) -> Assignment:
    """The recorded grouping, cut to the kernels of ``mods``."""
    every = recorded()
    paths = {m.path for m in mods}

    def mine(p: str) -> bool:
        return p.rsplit(":", 1)[0] in paths

    return Assignment(
        {p: s for p, s in every.moved.items() if mine(p)},
        {p: w for p, w in every.left_out.items() if mine(p)},
        every.kernels,
        every.groups,
    )


def group(mods: tuple[ShippedModule, ...], policy: SplitPolicy = POLICY) -> Assignment:
    """Every kernel of ``mods`` to one split: module splits, then near-copy groups (what ``GROUPS_FILE`` records for
    every package)."""
    defs = {k.source_path: k for m in mods for k in kernel_defs(m)}
    parent = {p: p for p in defs}

    def root(p: str) -> str:
        while parent[p] != p:
            parent[p] = parent[parent[p]]
            p = parent[p]
        return p

    for a, b, _ in near_pairs(((p, k.text) for p, k in defs.items()), policy.near_jaccard):
        parent[root(a)] = root(b)
    members: dict[str, list[str]] = {}
    for p in defs:
        members.setdefault(root(p), []).append(p)
    order = {pkg.distribution: n for n, pkg in enumerate(PACKAGES)}

    def rank(p: str) -> tuple:
        mod = defs[p].module
        path, line = p.rsplit(":", 1)
        return (group_of(mod.package) != "held-out", order[mod.package.distribution], path, int(line))

    out = Assignment(kernels=len(defs))
    for members_of in members.values():
        members_of.sort(key=rank)
        split = module_split(defs[members_of[0]].module, policy)
        out.groups += len(members_of) > 1
        for p in members_of:
            mod = defs[p].module
            if group_of(mod.package) == "train-only" and split != "train":
                out.left_out[p] = f"near-copy of a {split} kernel ({members_of[0]})"
            elif split != module_split(mod, policy):
                out.moved[p] = split
    return out


def cross_split_pairs(
    kernels: dict[str, tuple[str, str]], threshold: float = POLICY.near_jaccard
) -> list[tuple[str, str, float]]:
    """Pairs of kernels (``key -> (split, own kernel text)``) in different splits that are equal once normalized or
    near duplicates: what ``group`` keeps apart, found again on the rows a folder holds."""
    pairs = near_pairs(((k, text) for k, (_, text) in kernels.items()), threshold)
    return [(a, b, s) for a, b, s in pairs if kernels[a][0] != kernels[b][0]]


def main(argv: list[str] | None = None) -> int:
    """``python -m builder.shipped.splits [--write]``: group every package's kernels; print the split sizes per
    package (kernels found by the scan) and compare with, or rewrite, ``GROUPS_FILE``."""
    import argparse
    from collections import Counter

    from builder.shipped.modules import modules
    from builder.shipped.packages import require

    p = argparse.ArgumentParser(prog="python -m builder.shipped.splits", description=main.__doc__)
    p.add_argument("--write", action="store_true", help="rewrite the recorded grouping")
    args = p.parse_args(argv)
    require(tuple(SOURCES))
    mods = tuple(modules())
    fresh = group(mods)
    sizes: Counter = Counter()
    for m in mods:
        for k in kernel_defs(m):
            split = fresh.split_of(m, k.source_path)
            sizes[(m.package.distribution, group_of(m.package), split or "left out")] += 1
    for (pkg, grp, split), n in sorted(sizes.items()):
        print(f"{pkg}\t{grp}\t{split}\t{n}")
    print(
        f"{fresh.kernels} kernels, {fresh.groups} groups of near-copies, {len(fresh.moved)} moved off their"
        f" module's split, {len(fresh.left_out)} training kernels left out"
    )
    if args.write:
        GROUPS_FILE.write_text(json.dumps(fresh.to_json(), indent=1) + "\n")
        return 0
    same = fresh.to_json() == json.loads(GROUPS_FILE.read_text())
    print("recorded grouping: " + ("current" if same else f"stale: run with --write ({GROUPS_FILE.name})"))
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
