"""Checks come in two shapes: over one config's splits (``Check``) and over the whole folder (``FolderCheck``)."""

from __future__ import annotations

import inspect

import builder.validate as validate
from builder.checks.base import Check, FolderCheck, FolderCheckSettings
from builder.sources import SOURCES

VALIDATE_MODULES = ("card", "fidelity", "shards", "user_load")  # the folder checks validate runs itself


def test_every_folder_check_has_the_folder_check_shape():
    import importlib

    found = []
    for name in VALIDATE_MODULES:
        module = importlib.import_module(f"builder.validate.{name}")
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ == module.__name__ and "run" in vars(cls):
                assert issubclass(cls, FolderCheck), cls
                assert list(inspect.signature(cls.run).parameters) == ["self", "tables"], cls
                found.append(cls.name)
    assert sorted(found) == ["card", "datasets_load", "fidelity", "shards"]


def test_every_source_hands_out_its_folder_checks_in_the_folder_check_shape():
    owned = {source.name: source.folder_checks(FolderCheckSettings(sample=3, seed=1)) for source in SOURCES}
    for check in (c for checks in owned.values() for c in checks):
        assert isinstance(check, FolderCheck), check
        assert list(inspect.signature(type(check).run).parameters) == ["self", "tables"], check
    names = {source: sorted(c.name for c in checks) for source, checks in owned.items()}
    assert names == {
        "generated": ["determinism", "standalone_run"],
        "shipped": ["decontamination"],
        "derived": ["derived_decontamination", "derived_regeneration"],
        "repair": ["repair_agrees_with_cpu", "repair_regeneration"],
    }


def test_every_source_check_has_the_config_check_shape():
    for source in SOURCES:
        for config in source.configs:
            for check in source.checks(config):
                assert isinstance(check, Check) and check.name, (config, check)
    assert all(isinstance(c, Check) for c in validate.config_checks())
