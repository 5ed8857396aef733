"""Checks come in two shapes: over one config's splits (``Check``) and over the whole folder (``FolderCheck``)."""

from __future__ import annotations

import inspect

import builder.validate as validate
from builder.checks.base import Check, FolderCheck
from builder.sources import SOURCES

FOLDER_MODULES = ("card", "decontam", "fidelity", "regenerate", "shards", "user_load")


def test_every_folder_check_has_the_folder_check_shape():
    import importlib

    found = []
    for name in FOLDER_MODULES:
        module = importlib.import_module(f"builder.validate.{name}")
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ == module.__name__ and "run" in vars(cls):
                assert issubclass(cls, FolderCheck), cls
                assert list(inspect.signature(cls.run).parameters) == ["self", "tables"], cls
                found.append(cls.name)
    assert sorted(found) == ["card", "datasets_load", "decontamination", "determinism", "fidelity", "shards"]


def test_every_source_check_has_the_config_check_shape():
    for source in SOURCES:
        for config in source.configs:
            for check in source.checks(config):
                assert isinstance(check, Check) and check.name, (config, check)
    assert all(isinstance(c, Check) for c in validate.config_checks())
