"""The dataset card's section on the shipped config (``real``), computed from its Parquet shards: kernels per
package and split, counts by package and part, and the attribution every package's licence asks for."""

from __future__ import annotations

from collections import Counter

from builder.built_folder import BuiltFolder
from builder.shipped.packages import BY_DISTRIBUTION, PACKAGES, PARTS
from builder.shipped.splits import GROUPS, POLICY, group_of

_COLUMNS = ["id", "split", "category", "target", "pass", "compiled", "warp_version"]
_PROVENANCE = ["package", "package_version", "license", "copyright", "split_group"]
_FEATURES = (("cuda", "forward"), ("cuda", "backward"), ("cpu", "forward"))

INTRO = """The `real` config is written Warp code: the kernels that warp-lang ships (its examples, its library code
under `warp/_src`, and its unit tests) and the kernels of projects built on Warp (their examples, library and
tests), put through the same pipeline as the generated rows. Each kernel was found by importing its module (never
running it; modules that need packages this build does not install are skipped), cut out of its file with the
`@wp.func`s, `@wp.struct`s, constants and imports it reads, emitted alone for every target and pass Warp supports
for it (kernels with `enable_backward=False` have no backward row; a generic kernel has a row per declared
overload, and a training package's generic kernel it only instantiates at launch one for its float32 instance,
declared by the `wp.overload(...)` its `python_source` ends with), and compiled (NVRTC `sm_90` / Warp's CPU
compiler). Real rows are not executed (their inputs are unknown), so the execution columns are absent;
`source_path` names the file and line in its package.

It is split as a code dataset is (`split_group` says which way each row went):
- **held-out**: {held_out} go whole to `test`, to measure transfer to projects no model (and no choice of the
  generator's) has seen;
- **in-project**: {in_project} are split by module (source file), {shares} by a stable hash of the package and
  module path, so `validation` and `test` hold unseen modules of seen packages;
- **train-only**: the packages built on Warp that are collected for training ({train_only}) go whole to `train`.

Near-copies stay together: kernels whose own `def` is equal once normalized, or a near duplicate (normalized token
5-gram Jaccard >= {near}), go to the split of the first of them, so no `test` or `validation` kernel has a copy in
`train`; `validate` checks this on the rows and fails naming the pair. Train on `train`, choose on `validation`,
report on `test` once, per group and per package: `load_dataset(..., "real", split="train")`, or mix the train rows
into training on a generated config with `warp-cuda-ir train --mix-config real --mix-share P`."""
_SPLITS = ("train", "validation", "test")


def intro() -> str:
    """``INTRO`` with the packages of each group and the split policy as the builder has them."""
    by_group = {g: [p.distribution for p in PACKAGES if group_of(p) == g] for g in GROUPS}
    return INTRO.format(
        held_out=" and ".join(by_group["held-out"]),
        in_project=", ".join(by_group["in-project"]),
        train_only=", ".join(by_group["train-only"]),
        shares=" / ".join(str(p) for _, p in POLICY.shares),
        near=POLICY.near_jaccard,
    )


def _read(folder: BuiltFolder, config: str) -> list[dict]:
    table = folder.read(config, _COLUMNS + list(_PROVENANCE)).to_pylist()
    for r in table:  # a folder from before other packages were collected holds warp-lang's kernels only
        r.setdefault("package", "warp-lang")
        r.setdefault("package_version", r["warp_version"])
        r.setdefault("license", "Apache-2.0")
        r.setdefault("copyright", "")
        r.setdefault("split_group", "")
    return table


def section(folder: BuiltFolder, config: str = "real") -> str:
    """Markdown for a shipped config (counts by package and part, by target/pass; attribution), or "" when the
    folder has none."""
    if not folder.files.get(config):
        return ""
    rows = _read(folder, config)
    counts = Counter((r["package"], r["category"], r["target"], r["pass"]) for r in rows)
    kernels = Counter((r["package"], r["category"]) for r in {r["id"].rsplit("/", 1)[0]: r for r in rows}.values())
    order = {d: i for i, d in enumerate(BY_DISTRIBUTION)}
    groups = sorted(
        {(r["package"], r["category"]) for r in rows},
        key=lambda g: (order.get(g[0], 99), g[0], PARTS.index(g[1]) if g[1] in PARTS else 9),
    )
    head = "| package | part | kernels | " + " | ".join(f"{t} {p}" for t, p in _FEATURES) + " | rows |"
    table = [head, "|---|---|---|" + "---|" * (len(_FEATURES) + 1)]
    for pkg, part in groups:
        n = [counts[(pkg, part, t, p)] for t, p in _FEATURES]
        table.append(f"| {pkg} | {part} | {kernels[(pkg, part)]} | " + " | ".join(str(x) for x in n) + f" | {sum(n)} |")
    n = [sum(v for (_, _, t, p), v in counts.items() if (t, p) == f) for f in _FEATURES]
    table.append(f"| total | | {sum(kernels.values())} | " + " | ".join(str(x) for x in n) + f" | {sum(n)} |")
    compiled = sum(1 for r in rows if r["compiled"])
    versions = ", ".join(sorted({r["warp_version"] for r in rows})) or "unknown"
    return (
        f"## The `{config}` config\n\n"
        + intro()
        + "\n\n"
        + split_table(rows)
        + "\n\n"
        + "\n".join(table)
        + f"\n\n{compiled} of {len(rows)} rows carry compile evidence, emitted by warp-lang {versions}.\n\n"
        + attribution(rows)
    )


def split_table(rows: list[dict]) -> str:
    """Kernels (and rows) per package and split, with each package's group."""
    kernels = {r["id"].rsplit("/", 1)[0]: r for r in rows}.values()
    k = Counter((r["package"], r["split"]) for r in kernels)
    n = Counter((r["package"], r["split"]) for r in rows)
    group = {r["package"]: r["split_group"] for r in rows}
    order = {d: i for i, d in enumerate(BY_DISTRIBUTION)}
    lines = [
        "| package | group | " + " | ".join(f"{s} kernels (rows)" for s in _SPLITS) + " |",
        "|---|---|---|---|---|",
    ]
    for pkg in sorted(group, key=lambda d: (order.get(d, 99), d)):
        cells = " | ".join(f"{k[(pkg, s)]} ({n[(pkg, s)]})" for s in _SPLITS)
        lines.append(f"| {pkg} | {group[pkg]} | {cells} |")
    total = " | ".join(
        f"{sum(v for (_, sp), v in k.items() if sp == s)} ({sum(v for (_, sp), v in n.items() if sp == s)})"
        for s in _SPLITS
    )
    lines.append(f"| total | | {total} |")
    return "\n".join(lines)


def attribution(rows: list[dict]) -> str:
    """Every package the rows come from: version, licence, copyright notice, and the terms its rows are under."""
    lines = [
        "### Attribution and licences",
        "",
        "The Python source of every row of a shipped config is the work of its package's authors, and the emitted "
        "code is derived from it. Each row carries its `package`, `package_version`, `license` (SPDX id: its file's "
        "header, else its package's) and `copyright`; use a row under that licence, keeping its copyright notice "
        "and, for Apache-2.0, the licence text and any NOTICE file of the package. Only packages whose licence "
        "allows redistribution are collected.",
        "",
        "| package | version | licences of its rows | kernels | copyright | project |",
        "|---|---|---|---|---|---|",
    ]
    kernels = Counter(r["package"] for r in {r["id"].rsplit("/", 1)[0]: r for r in rows}.values())
    order = {d: i for i, d in enumerate(BY_DISTRIBUTION)}
    for pkg in sorted(kernels, key=lambda d: (order.get(d, 99), d)):
        mine = [r for r in rows if r["package"] == pkg]
        versions = ", ".join(sorted({r["package_version"] for r in mine}))
        licences = ", ".join(sorted({r["license"] for r in mine}))
        entry = BY_DISTRIBUTION.get(pkg)
        # every distinct notice of its files (years differ between files; a file may credit other authors)
        split = {n.strip() for r in mine for n in r["copyright"].split(";") if n.strip()}
        notice = "<br>".join(sorted(split)) or (entry.copyright if entry else "")
        home = entry.home if entry and entry.home else ""
        lines.append(f"| {pkg} | {versions} | {licences} | {kernels[pkg]} | {notice} | {home} |")
    return "\n".join(lines) + "\n"
