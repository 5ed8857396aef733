"""The dataset card's sections on the shipped configs (``real``, ``real-train``), computed from their Parquet
shards: counts by package and part, and the attribution every package's licence asks for."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq

from builder.shipped.packages import BY_DISTRIBUTION, PARTS

_COLUMNS = ["id", "category", "target", "pass", "compiled", "warp_version"]
_PROVENANCE = ["package", "package_version", "license", "copyright"]
_FEATURES = (("cuda", "forward"), ("cuda", "backward"), ("cpu", "forward"))

INTRO = """The `real` config is an evaluation set, not training data: the kernels that warp-lang ships (its examples,
its library code under `warp/_src`, and its unit tests) and the kernels of projects built on Warp (their
examples, library and tests), put through the same pipeline as the generated rows. Use it to measure how a model
trained on the generated configs does on code people wrote, per project (`package` column). Each kernel was found
by importing its module (never running it; modules that need packages this build does not install are skipped),
cut out of its file with the `@wp.func`s, `@wp.struct`s, constants and imports it reads, emitted alone for every
target and pass Warp supports for it (kernels with `enable_backward=False` have no backward row; a generic kernel
has a row per declared overload), and compiled (NVRTC `sm_90` / Warp's CPU compiler). Real rows are not executed
(their inputs are unknown), so the execution columns are absent; `source_path` names the file and line in its
package. Its one split is `test`."""

INTRO_TRAIN = """The `real-train` config is written Warp code to train on: the kernels of other packages built on Warp
(none of them a package `real` scores on; `builder/shipped/packages.py` says which package is for which),
collected, emitted and compiled exactly as `real`'s are, with the same columns. A generic kernel its package only
instantiates at launch has one row per target for its float32 instance, and its `python_source` ends with the
`wp.overload(...)` declaration that makes it. A model trained on the generated
configs can mix these rows in (`warp-cuda-ir train --mix-config real-train --mix-share P` takes the rows of its
target and pass); `validate` checks that none is a duplicate or near duplicate of a `real` kernel. Its one split
is `train`."""
_INTROS = {"real": INTRO, "real-train": INTRO_TRAIN}


def _read(file: Path) -> list[dict]:
    names = set(pq.read_schema(file).names)
    table = pq.read_table(file, columns=_COLUMNS + [c for c in _PROVENANCE if c in names]).to_pylist()
    for r in table:  # a folder from before other packages were collected holds warp-lang's kernels only
        r.setdefault("package", "warp-lang")
        r.setdefault("package_version", r["warp_version"])
        r.setdefault("license", "Apache-2.0")
        r.setdefault("copyright", "")
    return table


def section(files: list[Path], config: str = "real") -> str:
    """Markdown for a shipped config (counts by package and part, by target/pass; attribution), or "" when the
    folder has none."""
    if not files:
        return ""
    rows = [r for f in files for r in _read(f)]
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
        + _INTROS[config]
        + "\n\n"
        + "\n".join(table)
        + f"\n\n{compiled} of {len(rows)} rows carry compile evidence, emitted by warp-lang {versions}.\n\n"
        + attribution(rows)
    )


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
