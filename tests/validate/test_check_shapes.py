"""Every check has one shape: ``run(context) -> Result`` on a ``Context``, and lives under ``builder/checks/``;
``validate`` is a loop over them."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
from pathlib import Path

import builder.checks
import builder.validate as validate
from builder.checks.base import Check, ConfigCheck, Context
from builder.sources import SOURCES

BUILDER = Path(builder.checks.__file__).parents[1]


def _check_classes():
    for info in pkgutil.iter_modules(builder.checks.__path__):
        module = importlib.import_module(f"builder.checks.{info.name}")
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ == module.__name__ and issubclass(cls, Check) and not inspect.isabstract(cls):
                yield cls


def test_every_check_runs_on_one_context():
    found = list(_check_classes())
    assert len(found) >= 25, [c.__name__ for c in found]
    for cls in found:
        assert list(inspect.signature(cls.run).parameters) == ["self", "context"], cls
        assert list(inspect.signature(cls.applies).parameters) == ["self", "context"], cls
        if issubclass(cls, ConfigCheck):  # a config's check: validate hands it the context narrowed to the config
            assert list(inspect.signature(cls.check).parameters) == ["self", "config", "tables"], cls


def test_no_check_class_lives_outside_checks():
    """A class that subclasses a check base anywhere else in the package is a check in the wrong room."""
    bases = {"Check", "ConfigCheck", "RowCheck"}
    outside = []
    for path in sorted(BUILDER.rglob("*.py")):
        if path.parent.name == "checks":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.ClassDef)
                and {getattr(b, "id", getattr(b, "attr", "")) for b in node.bases} & bases
            ):
                outside.append(f"{path.relative_to(BUILDER)}:{node.name}")
    assert not outside


def test_validate_holds_no_check():
    tree = ast.parse(Path(validate.__file__).read_text())
    assert not [n.name for n in ast.walk(tree) if isinstance(n, ast.ClassDef)]
    assert {type(c).__name__ for c in (*validate.FIRST, *validate.PER_CONFIG, *validate.DRAWN, *validate.LAST)} == {
        "Shards",
        "Determinism",
        "ConfigName",
        "Schema",
        "Fidelity",
        "Card",
        "UserLoad",
    }


def test_every_source_hands_out_checks_of_the_one_shape():
    owned = {source.name: source.folder_checks() for source in SOURCES}
    for check in (c for checks in owned.values() for c in checks):
        assert isinstance(check, Check) and not isinstance(check, ConfigCheck), check
    names = {source: sorted(c.name for c in checks) for source, checks in owned.items()}
    assert names == {
        "generated": [],
        "standalone": ["standalone_run"],
        "shipped": ["decontamination"],
        "derived": ["derived_decontamination", "derived_regeneration"],
        "repair": ["repair_agrees_with_cpu", "repair_regeneration"],
    }
    for source in SOURCES:
        for config in source.configs:
            for check in source.checks(config):
                assert isinstance(check, ConfigCheck) and check.name, (config, check)
    assert all(isinstance(c, ConfigCheck) for c in validate.config_checks())


def test_a_config_check_sees_the_one_config_it_is_handed():
    import pyarrow as pa

    from builder.checks.ids import UniqueIds

    tables = {"cpu": {"train": pa.table({"id": ["a", "a"]})}, "real": {"train": pa.table({"id": ["b"]})}}
    result = UniqueIds().run(Context(tables).narrowed("cpu"))
    assert (result.config, result.status, result.offenders) == ("cpu", "fail", ["a"])
