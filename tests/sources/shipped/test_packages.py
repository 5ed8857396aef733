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
    # a licence field may spell the SPDX id out ("MIT License")
    assert packages.installed_license(pkg).removesuffix(" License") == pkg.license
    assert pkg.license in packages.REDISTRIBUTABLE
    root = packages.package_dir(pkg.import_name)
    assert root.name == pkg.import_name
    files = packages.part_files(pkg, root)
    assert {p.name for p in files.values()} == {p.name for p in pkg.parts}, "a part that takes no file"


def test_the_real_extras_pin_every_package_but_warp_lang_at_its_entry():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extra = project["optional-dependencies"]["real"]
    pins = [d for d in extra if "==" in d]
    assert sorted(pins) == sorted(p.pin for p in PACKAGES if p.distribution != "warp-lang")
    # what a training package's modules import beside it is installed by the same extra
    needs = {n for p in PACKAGES for n in p.needs}
    assert needs <= {d.split(">")[0].split("=")[0] for d in extra}
    # the former real-train extra installs the same
    assert project["optional-dependencies"]["real-train"] == ["warp-cuda-ir[real]"]
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


def test_a_build_checks_the_packages_once_in_its_plan_before_it_writes_or_starts_anything(
    monkeypatch, tmp_path, capsys
):
    from builder.cli import main

    calls = []
    real_require = packages.require
    monkeypatch.setattr(packages, "require", lambda sources: calls.append(sources) or real_require(sources))
    monkeypatch.setattr(packages, "installed_version", lambda p: None if p.distribution == "warp-nn" else p.version)
    out = tmp_path / "ds"
    assert main(["build", "--configs", "real", "--real-sources", "warp-nn", "--verify", "none", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "pip install 'warp-nn==" in err[0] and "installed: none" in err[0], err
    assert len(calls) == 1 and not out.exists()  # one check, and no folder, log or worker left behind


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
    with pytest.raises(ConfigError, match="leave_out names a kernel of warp and says why"):
        replace(warp_lang, leave_out=(("newton.k", "another package's"),))
    with pytest.raises(ConfigError, match="says why"):
        replace(warp_lang, leave_out=(("warp.k", ""),))
    with pytest.raises(ConfigError, match="for training packages only"):
        replace(warp_lang, struct_instances=(("*State", "State3"),))
    with pytest.raises(ConfigError, match="names a struct of the kernel's module"):
        replace(PACKAGES[-1], use="training", struct_instances=(("*State", "mod.State3"),))
    assert isinstance(warp_lang, Package)


@pytest.mark.parametrize("pkg", [p for p in PACKAGES if p.leave_out], ids=lambda p: p.distribution)
def test_each_kernel_left_out_is_still_a_kernel_of_the_package(pkg):
    # a stale entry would leave nothing out and hide that the package changed; read, not imported
    import ast

    for name, _ in pkg.leave_out:
        module, _, func = name.rpartition(".")
        path = packages.package_dir(pkg.import_name).joinpath(*module.split(".")[1:]).with_suffix(".py")
        tree = ast.parse(path.read_text(encoding="utf-8"))
        defs = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == func]
        assert defs and any("kernel" in ast.unparse(d) for d in defs[0].decorator_list), name


def test_a_files_own_header_names_its_licence_and_copyright():
    text = (
        "#!/usr/bin/env python\n# SPDX-FileCopyrightText: Copyright (c) 2025 The Newton Developers\n"
        "# SPDX-License-Identifier: Apache-2.0\n\nimport warp as wp\n# Copyright later, not a header\n"
    )
    assert packages.header(text) == ("Apache-2.0", ["Copyright (c) 2025 The Newton Developers"])
    assert packages.header("import warp as wp\n") == (None, [])


def test_real_collects_every_package_and_real_train_is_retired():
    from builder.build_options import BuildOptions

    assert BuildOptions("real").shipped_sources == tuple(SOURCES)  # the default collects every package
    assert BuildOptions("real", real_sources="examples,warp-jsb").shipped_sources == ("examples", "warp-jsb/library")
    with pytest.raises(ConfigError, match="config 'real-train' is retired: its rows are real's train split") as e:
        BuildOptions("real-train")
    assert "\n" not in str(e.value)


def test_a_package_that_needs_an_optional_package_requires_it(monkeypatch):
    import importlib.util

    real_find = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda n, *a: None if n == "torch" else real_find(n, *a))
    with pytest.raises(ConfigError, match=r"need torch installed: pip install -e '\.\[real\]'") as e:
        packages.require(("gswarp",))
    assert "\n" not in str(e.value)
    packages.require(("warp-jsb",))  # needs nothing beside it
