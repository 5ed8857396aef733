"""The real projects the realism judge compares with: the kernel texts of the ``real`` config's packages, read from
their installed files as text (never imported). warp-lang counts as three projects (its examples, library and tests
are written for different ends); every other package is one project, all its parts together."""

from __future__ import annotations

import sys

from builder.analysis.judge import kernel_texts
from builder.shipped.packages import PACKAGES, Package, installed_version, package_dir, part_files


def project_name(pkg: Package, part: str) -> str:
    return f"{pkg.distribution}/{part}" if pkg.distribution == "warp-lang" else pkg.distribution


def real_projects(quiet: bool = False) -> dict[str, list[str]]:
    """Project name -> kernel texts, for every package installed at its pinned version (others are named on stderr
    and left out)."""
    out: dict[str, list[str]] = {}
    for pkg in PACKAGES:
        if pkg.use != "evaluation":  # the training packages teach; the judge compares with the projects real scores
            continue
        if installed_version(pkg) != pkg.version:
            if not quiet:
                print(f"realism: {pkg.pin} is not installed; left out (pip install -e '.[real]')", file=sys.stderr)
            continue
        for file, part in part_files(pkg, package_dir(pkg.import_name)).items():
            texts = kernel_texts(file.read_text(encoding="utf-8", errors="replace"))
            out.setdefault(project_name(pkg, part.name), []).extend(texts)
    return out
