"""The packages the real config collects: each entry agrees with what pip installed (version, licence, the extra that
pins it), a missing package is a one-line error naming the install step, and the source keys resolve."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
import tomllib

from builder.errors import ConfigError
from builder.shipped import packages
from builder.shipped.packages import PACKAGES, SOURCES, Package, Part

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize("pkg", PACKAGES, ids=lambda p: p.distribution)
def test_each_entry_is_what_is_installed_under_a_licence_that_allows_redistribution(pkg):
    # the installed distribution's own metadata is the judge of version and licence, not the entry
    assert packages.installed_version(pkg) == pkg.version
    assert packages.installed_license(pkg) == pkg.license
    assert pkg.license in packages.REDISTRIBUTABLE
    root = packages.package_dir(pkg.import_name)
    assert root.name == pkg.import_name
    files = packages.part_files(pkg, root)
    assert {p.name for p in files.values()} == {p.name for p in pkg.parts}, "a part that takes no file"


def test_the_real_extra_pins_every_package_but_warp_lang_at_its_entry():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extra = sorted(project["optional-dependencies"]["real"])
    assert extra == sorted(p.pin for p in PACKAGES if p.distribution != "warp-lang")
    # warp-lang is the project's own dependency: its range must admit the version the real config is collected at
    from packaging.requirements import Requirement

    warp_req = next(Requirement(d) for d in project["dependencies"] if d.startswith("warp-lang"))
    assert PACKAGES[0].distribution == "warp-lang" and PACKAGES[0].version in warp_req.specifier


def test_sources_resolve_from_packages_and_parts_in_collection_order():
    assert tuple(SOURCES)[:3] == ("examples", "library", "tests")  # warp-lang's keep their short names
    assert packages.select(("newton",)) == ("newton/examples", "newton/library", "newton/tests")
    assert packages.select(("mujoco-warp/library", "examples")) == ("examples", "mujoco-warp/library")
    with pytest.raises(ConfigError, match=r"unknown real_sources \['newtn'\]") as e:
        packages.select(("newtn", "examples"))
    assert "\n" not in str(e.value)


def test_a_missing_or_wrong_version_is_one_line_naming_the_install(monkeypatch):
    monkeypatch.setattr(packages, "installed_version", lambda p: None if p.distribution == "newton" else p.version)
    with pytest.raises(ConfigError) as e:
        packages.require(("examples", "newton/library"))
    msg = str(e.value)
    assert "\n" not in msg and "pip install 'newton==1.8.0'" in msg and "installed: none" in msg
    packages.require(("examples", "warp-nn"))  # only the packages asked for must be there


def test_an_entry_validates_itself():
    warp_lang = PACKAGES[0]
    with pytest.raises(ConfigError, match="not one the real config redistributes"):
        replace(warp_lang, license="GPL-3.0-only")
    with pytest.raises(ConfigError, match="named once each"):
        replace(warp_lang, parts=(Part("library", "a"), Part("library", "b")))
    with pytest.raises(ConfigError, match="unknown part"):
        Part("docs", "docs")
    with pytest.raises(ConfigError, match="relative to its package"):
        Part("library", "../elsewhere")
    assert isinstance(warp_lang, Package)


def test_a_files_own_header_names_its_licence_and_copyright():
    text = (
        "#!/usr/bin/env python\n# SPDX-FileCopyrightText: Copyright (c) 2025 The Newton Developers\n"
        "# SPDX-License-Identifier: Apache-2.0\n\nimport warp as wp\n# Copyright later, not a header\n"
    )
    assert packages.header(text) == ("Apache-2.0", ["Copyright (c) 2025 The Newton Developers"])
    assert packages.header("import warp as wp\n") == (None, [])
