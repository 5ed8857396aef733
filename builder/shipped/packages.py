"""Which packages the ``real`` config collects kernels from: one entry each, pinned to an exact version.

Adding a package is one ``Package`` entry here and its pin in the ``real`` extra of pyproject.toml (a test checks
the two agree). A package is walked without being imported (``builder.shipped.modules``); its licence must allow
redistribution, since the rows hold its source. Every row names its package, version, licence and copyright.

A package's *parts* say what its code is for (``examples``, ``library``, ``tests``); a file belongs to the first
part whose folder and pattern match it. A *source* is one part of one package, spelled ``PACKAGE/PART``; warp-lang's
parts keep their short names (``examples``, ``library``, ``tests``) from before other packages were collected.
"""

from __future__ import annotations

import fnmatch
import importlib.metadata
import importlib.util
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from builder.errors import ConfigError

# SPDX ids whose terms allow redistributing the source with attribution; a package under any other licence is not
# collected (rows hold the kernels' source and code emitted from it)
REDISTRIBUTABLE = frozenset({"Apache-2.0", "MIT", "BSD-2-Clause", "BSD-3-Clause"})
PARTS = ("examples", "library", "tests")
# what a package's kernels are for: an evaluation package is split by module (or held out whole in test,
# ``Package.held_out``); a training package's kernels are all in real's train split (builder.shipped.splits)
USES = ("evaluation", "training")
EXTRA = "real"  # the pyproject extra that installs every package, evaluation and training alike


@dataclass(frozen=True)
class Part:
    name: str  # examples, library or tests: what the code is for
    folder: str  # inside the import package ("" for the whole package)
    pattern: str = "*.py"  # file names this part takes (fnmatch)
    guard: bool = False  # import a module only when that runs none of its work (scripts, examples)

    def __post_init__(self) -> None:
        if self.name not in PARTS:
            raise ConfigError(f"unknown part {self.name!r}; valid: {', '.join(PARTS)}")
        if self.folder.startswith("/") or ".." in Path(self.folder).parts:
            raise ConfigError(f"a part's folder is relative to its package, got {self.folder!r}")


@dataclass(frozen=True)
class Package:
    distribution: str  # the name pip installs, e.g. "mujoco-warp"
    version: str  # the exact version rows are collected from
    import_name: str  # the top-level package, e.g. "mujoco_warp"
    license: str  # SPDX id of the package's licence
    copyright: str  # the package's copyright notice (a file's own header wins for its rows)
    home: str  # the repository its metadata names ("" when it names none)
    parts: tuple[Part, ...]
    use: str = "evaluation"
    # optional packages (builder.warp_backend.shipped_import.OPTIONAL_PACKAGES) its modules are imported with: the
    # extra that collects it installs them, so its rows are the same on every machine that builds them
    needs: tuple[str, ...] = ()
    # kernels not collected, as (qualified name: module.function, why): a training package's kernel that equals an
    # evaluation kernel in normalized form (builder.checks.decontamination would fail the folder holding both)
    leave_out: tuple[tuple[str, str], ...] = ()
    # a training package's generic kernels may take structs as `Any`, the package picking them at launch: each entry
    # is (a parameter-name pattern, fnmatch; the struct's name in the kernel's module) for the instance
    # builder.warp_backend.shipped_names.derive_overload declares, as the package's own dispatch would pick it
    struct_instances: tuple[tuple[str, str], ...] = ()
    # an evaluation package held out whole: every kernel in real's test split, none in train or validation, so a
    # score on it measures transfer to a project no model (and no choice of the generator's) has seen
    held_out: bool = False

    def __post_init__(self) -> None:
        if self.held_out and self.use != "evaluation":
            raise ConfigError(f"{self.distribution}: only an evaluation package is held out")
        if self.use not in USES:
            raise ConfigError(f"{self.distribution}: unknown use {self.use!r}; valid: {', '.join(USES)}")
        if any(not name.startswith(self.import_name + ".") or not why for name, why in self.leave_out):
            raise ConfigError(f"{self.distribution}: leave_out names a kernel of {self.import_name} and says why")
        if self.struct_instances and self.use != "training":
            # a real row is only what its package declares: the evaluation set never gets a derived instance
            raise ConfigError(f"{self.distribution}: struct_instances are for training packages only")
        if any(not name.isidentifier() for _, name in self.struct_instances):
            raise ConfigError(f"{self.distribution}: a struct instance names a struct of the kernel's module")
        if self.license not in REDISTRIBUTABLE:
            raise ConfigError(
                f"{self.distribution}: licence {self.license!r} is not one the real config redistributes "
                f"({', '.join(sorted(REDISTRIBUTABLE))})"
            )
        if not self.parts or len({p.name for p in self.parts}) != len(self.parts):
            raise ConfigError(f"{self.distribution}: parts must be given and named once each")
        if not self.import_name.isidentifier():
            raise ConfigError(f"{self.distribution}: import_name must be a module name, got {self.import_name!r}")

    @property
    def pin(self) -> str:
        return f"{self.distribution}=={self.version}"

    def source(self, part: Part) -> str:
        """The source key of one of this package's parts."""
        return part.name if self.distribution == "warp-lang" else f"{self.distribution}/{part.name}"


_APACHE_NVIDIA = "Copyright (c) NVIDIA CORPORATION & AFFILIATES. All rights reserved."

PACKAGES: tuple[Package, ...] = (
    Package(
        "warp-lang",
        "1.19.0",
        "warp",
        "Apache-2.0",
        _APACHE_NVIDIA,
        "https://github.com/NVIDIA/warp",
        (Part("examples", "examples", guard=True), Part("library", "_src"), Part("tests", "tests")),
    ),
    Package(
        "newton",
        "1.8.0",
        "newton",
        "Apache-2.0",
        "Copyright (c) The Newton Developers",
        "",
        (Part("examples", "examples", guard=True), Part("library", "_src"), Part("tests", "tests")),
    ),
    Package(
        "mujoco-warp",
        "4.0.0",
        "mujoco_warp",
        "Apache-2.0",
        "Copyright The Newton Developers",
        "https://github.com/google-deepmind/mujoco_warp",
        # its tests live beside the code they test, as *_test.py
        (Part("tests", "_src", "*_test.py"), Part("library", "_src")),
    ),
    Package(
        "nvalchemi-toolkit-ops",
        "0.5.0",
        "nvalchemiops",
        "Apache-2.0",
        _APACHE_NVIDIA,
        "",
        (Part("library", ""),),
        held_out=True,
    ),
    Package(
        "warp-nn",
        "0.4.1",
        "warp_nn",
        "Apache-2.0",
        _APACHE_NVIDIA,
        "https://github.com/NVIDIA/warp-nn",
        (Part("library", ""),),
        held_out=True,
    ),
    # training only (real's train split): packages built on Warp whose kernels are never scored on
    Package(
        "gswarp",
        "1.1.0",
        "gswarp",
        "Apache-2.0",
        "Copyright 2025 gswarp contributors",
        "",
        (Part("library", ""),),
        use="training",
        needs=("torch",),
    ),
    Package(
        "warpsphcore",
        "0.6.0",
        "warpSPHCore",
        "MIT",
        "Copyright (c) 2026 Rene Winchenbach",
        "",
        (Part("library", ""),),
        use="training",
        needs=("torch",),
        # its kernels share one prefix of structs spelled `Any`, which the package picks per dimension
        # (warpSPHCore.util.fieldRegistry.structFor): these are its three-dimensional ones
        struct_instances=(
            ("*State", "particleDataSoA_3"),
            ("correctionData", "correctionData_3"),
            ("correctionTangentData", "correctionTangentData_3"),
        ),
    ),
    Package(
        "skrl",
        "2.1.1",
        "skrl",
        "MIT",
        "Copyright (c) 2021 Toni-SM",
        "https://github.com/Toni-SM/skrl",
        (Part("library", ""),),
        use="training",
        needs=("torch",),
    ),
    Package(
        "mink-warp",
        "0.1.0",
        "mink_warp",
        "Apache-2.0",
        "Copyright (c) Simeon Nedelchev, Ivan Domrachev",  # its licence file names no holder: its metadata's authors
        "https://github.com/simeon-ned/mink-warp",
        (Part("library", ""),),
        use="training",
        leave_out=(("mink_warp.kernels.lm.zero_cost", "equals newton's _coupling_zero_mass_kernel, normalized"),),
    ),
    Package(
        "warpsphboundaries",
        "0.1.0",
        "warpSPHBoundaries",
        "MIT",
        "Copyright (c) 2026 Rene Winchenbach",
        "https://github.com/wi-re/warpSPHBoundaries",
        (Part("library", ""),),
        use="training",
        needs=("torch",),
    ),
    Package(
        "warp-jsb",
        "0.1.0",
        "warp_jsb",
        "MIT",
        "Copyright (c) 2026 BluniStark",
        "https://github.com/Blunistark/Nvidia-JSB",
        (Part("library", ""),),
        use="training",
    ),
)

BY_DISTRIBUTION = {p.distribution: p for p in PACKAGES}
# source key -> (package, part), in collection order: packages as listed, then their parts as listed
SOURCES: dict[str, tuple[Package, Part]] = {p.source(part): (p, part) for p in PACKAGES for part in p.parts}
WARP_SOURCES = tuple(k for k, (p, _) in SOURCES.items() if p.distribution == "warp-lang")


def select(selectors: tuple[str, ...]) -> tuple[str, ...]:
    """The source keys ``selectors`` name (a source key, or a package's distribution name for all its parts), in
    collection order; ``ConfigError`` names what is unknown."""
    bad = [s for s in selectors if s not in SOURCES and s not in BY_DISTRIBUTION]
    if bad or not selectors:
        raise ConfigError(
            f"unknown real_sources {bad or list(selectors)}; valid: a package ({', '.join(BY_DISTRIBUTION)}) "
            f"or one of its parts ({', '.join(SOURCES)})"
        )
    chosen = set(selectors)
    return tuple(k for k, (p, _) in SOURCES.items() if k in chosen or p.distribution in chosen)


def packages_of(sources: tuple[str, ...]) -> list[Package]:
    """The packages the sources belong to, in collection order."""
    names = {SOURCES[s][0].distribution for s in select(sources)}
    return [p for p in PACKAGES if p.distribution in names]


def install_line(pkgs: list[Package]) -> str:
    return "pip install " + " ".join(f"'{p.pin}'" for p in pkgs)


def require(sources: tuple[str, ...]) -> None:
    """Raise ``ConfigError`` (one line naming the install step) unless every package of ``sources`` is installed at
    its pinned version: rows from another version would not be the dataset's rows."""
    wrong = []
    for p in packages_of(sources):
        have = installed_version(p)
        if have != p.version:
            wrong.append((p, have))
    if wrong:
        what = ", ".join(f"{p.pin} (installed: {have or 'none'})" for p, have in wrong)
        raise ConfigError(
            f"the shipped kernels need {what}: {install_line([p for p, _ in wrong])}, or pip install -e "
            f"'.[{EXTRA}]' from the repository; --real-sources picks fewer packages"
        )
    # a module that imports an optional package its package needs would be skipped without it: other rows
    needy = [p for p in packages_of(sources) if p.needs]
    missing = sorted({n for p in needy for n in p.needs if importlib.util.find_spec(n) is None})
    if missing:
        raise ConfigError(
            f"the shipped kernels of {', '.join(p.distribution for p in needy)} need {', '.join(missing)} "
            f"installed: pip install -e '.[{EXTRA}]' from the repository"
        )


def installed_version(pkg: Package) -> str | None:
    try:
        return importlib.metadata.version(pkg.distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def installed_license(pkg: Package) -> str:
    """The licence the installed distribution declares (License-Expression, else the first line of License: some
    packages put the licence's whole text there), "" when none."""
    meta = importlib.metadata.metadata(pkg.distribution)
    text = (meta.get("License-Expression") or meta.get("License") or "").strip()
    return text.splitlines()[0].strip() if text else ""


@cache
def package_dir(import_name: str) -> Path:
    """The installed package's folder, found without importing it (planning a build stays cheap)."""
    spec = importlib.util.find_spec(import_name)
    if spec is None or spec.origin is None:
        raise ConfigError(f"the real config needs the {import_name!r} package installed; none found")
    return Path(spec.origin).resolve().parent


def part_files(pkg: Package, root: Path) -> dict[Path, Part]:
    """Every ``.py`` file of ``pkg`` (its folder ``root``) that a part takes, mapped to that part (the first that
    matches), in sorted order."""
    out: dict[Path, Part] = {}
    for part in pkg.parts:
        base = root / part.folder if part.folder else root
        for file in sorted(base.rglob("*.py")):
            if file in out or "__pycache__" in file.parts or not fnmatch.fnmatch(file.name, part.pattern):
                continue
            out[file] = part
    return dict(sorted(out.items()))


def header(text: str) -> tuple[str | None, list[str]]:
    """The SPDX licence id and the copyright lines of a file's leading comment block (None, [] when absent)."""
    spdx, notices = None, []
    for line in text.splitlines():
        s = line.strip()
        if not s.startswith("#"):
            if s:
                break
            continue
        body = s.lstrip("#").strip()
        if body.startswith("SPDX-License-Identifier:"):
            spdx = body.split(":", 1)[1].strip()
        elif body.startswith("SPDX-FileCopyrightText:"):
            notices.append(body.split(":", 1)[1].strip())
        elif body.lower().startswith("copyright"):
            notices.append(body)
    return spdx, notices
