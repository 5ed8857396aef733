"""The config registry (builder.configs): typed specs that validate themselves, and the one place a config's name
is compared with a string."""

from __future__ import annotations

import ast
from pathlib import Path

import datasets
import pytest

from builder import configs, schema
from builder.configs import REGISTRY, UNITS, ConfigSpec, names, spec
from builder.errors import ConfigError

ROOT = Path(__file__).resolve().parents[1]
# the registry gives names their meaning: no other module compares a config with a name or keys a table by names
ALLOWED = (ROOT / "builder" / "configs.py",)
SCANNED = [
    p
    for p in [*ROOT.joinpath("builder").rglob("*.py"), *ROOT.joinpath("dataset_card").rglob("*.py")]
    + [*ROOT.joinpath("scripts").glob("*.py"), ROOT / "warp_cuda_ir.py"]
    if not any(p == a or a in p.parents for a in ALLOWED)
]


def _compared_names(path: Path, root: Path = ROOT) -> list[str]:
    """``line: expression`` of every comparison of a config name outside the registry: a config that is not also a
    unit name compared with anything, or any config name compared with a variable named like a config."""
    only_configs = set(REGISTRY) - set(UNITS)
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.Compare):
            continue
        sides = [node.left, *node.comparators]
        consts = {
            n.value for s in sides for n in ast.walk(s) if isinstance(n, ast.Constant) and isinstance(n.value, str)
        }
        named = " ".join(ast.unparse(s) for s in sides if not isinstance(s, ast.Constant)).lower()
        if consts & only_configs or (consts & set(REGISTRY) and ("config" in named or "cfg" in named)):
            out.append(f"{path.relative_to(root)}:{node.lineno}: {ast.unparse(node)}")
    return out


def _tables_by_name(path: Path, root: Path = ROOT) -> list[str]:
    """``line: keys`` of every dict literal keyed by two or more config names, one of them not also a unit name (a
    record with a ``real`` field is not a table of configs)."""
    only_configs = set(REGISTRY) - set(UNITS)
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Dict):
            keys = [k.value for k in node.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)]
            if set(keys) & only_configs and len(set(keys) & set(REGISTRY)) > 1:
                out.append(f"{path.relative_to(root)}:{node.lineno}: {', '.join(keys)}")
    return out


def test_no_table_is_keyed_by_config_names_outside_the_registry():
    found = [line for p in SCANNED for line in _tables_by_name(p)]
    assert SCANNED and not found, "put what depends on a config in its ConfigSpec instead:\n" + "\n".join(found)


def test_the_table_scan_sees_a_table(tmp_path):
    planted = tmp_path / "planted.py"
    planted.write_text(
        'EXTRA = {"real": "real", "gpu-verified": None}\nUNIT = {"cpu": 1}\nLOSS = {"real": 1, "x": 2}\n'
    )
    assert _tables_by_name(planted, tmp_path) == ["planted.py:1: real, gpu-verified"]


def test_no_config_name_is_compared_outside_the_registry():
    found = [line for p in SCANNED for line in _compared_names(p)]
    assert SCANNED and not found, "ask builder.configs.spec(config) instead:\n" + "\n".join(found)


def test_the_scan_sees_a_comparison(tmp_path):
    planted = tmp_path / "planted.py"
    planted.write_text('def f(config, target):\n    return config == "cpu" or "real" in ("a",) or target == "cpu"\n')
    assert [line.split(": ", 1)[1] for line in _compared_names(planted, tmp_path)] == [
        "config == 'cpu'",
        "'real' in ('a',)",
    ]


def test_every_config_has_a_spec_and_its_columns():
    assert configs.CONFIGS == tuple(REGISTRY)
    for name, s in REGISTRY.items():
        assert s.name == name
        cols = schema.columns(name)
        assert ("ir" in cols) == s.ir and ("cpu_program" in cols) == s.programs
        assert ("gpu_match" in cols) == s.gpu and ("ptx" in cols) == s.ptx
        # a row made from a written kernel (derived, repair-real) is seeded and names the package the kernel came from
        assert ("seed" in cols) == s.seeded and ("package" in cols) == (s.shipped or s.written)
        assert ("derived_from" in cols) == s.derived and ("split_group" in cols) == s.shipped
        assert ("diagnostic" in cols) == s.repair and ("index" in cols) == s.seeded
        assert isinstance(schema.features(name), datasets.Features)


def test_unknown_config_fails_with_the_valid_names():
    with pytest.raises(ConfigError, match="unknown config 'cuda'; valid: cuda-forward, cuda-backward"):
        spec("cuda")
    with pytest.raises(ConfigError, match="unknown unit"):
        configs.unit("gpu-verified")


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"source": "hub"}, "unknown source 'hub'"),
        ({"use": "sometimes"}, "unknown use"),
        ({"units": ("cuda-sideways",)}, "units must be some of"),
        ({"units": ()}, "units must be some of"),
        ({"splits": ("dev",)}, "splits must be some of"),
        ({"ir": False}, "exactly one of an ir, whole programs or a repair"),
        ({"programs": True}, "exactly one of an ir, whole programs or a repair"),
        ({"source": "repair"}, "exactly one of an ir, whole programs or a repair"),  # a repair row holds no ir
    ],
)
def test_a_bad_spec_fails_on_construction(kwargs, message):
    base = {"name": "x", "source": "generated", "description": "d", "units": ("cpu",)}
    with pytest.raises(ConfigError, match=message):
        ConfigSpec(**(base | kwargs))


def test_what_the_card_and_the_trainer_read_from_specs():
    assert names(shipped=True) == ("real",) and spec("real").splits == schema.SPLITS
    assert [spec(c).target_pass() for c in ("cpu", "gpu-verified", "real", "standalone")] == [
        "cpu / forward",
        "cuda / forward + backward",
        "cuda + cpu / forward + backward",
        "cpu + cuda programs / forward",
    ]
    # the default build: every config of one unit, drawn
    assert configs.DEFAULT_CONFIGS == ("cuda-forward", "cuda-backward", "cpu")
    assert all(spec(c).single_unit and spec(c).generated for c in configs.DEFAULT_CONFIGS)
    assert spec("gpu-verified").units_per_program == 2 and spec("real").units_per_program == 1
