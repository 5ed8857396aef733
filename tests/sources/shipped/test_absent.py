"""A package the real config hides is absent to every way of asking, exactly as if it were not installed: warp's
own test utilities ask ``importlib.util.find_spec("pxr")``, and a finder that raised there cost 90% of the kernels."""

from __future__ import annotations

import subprocess
import sys

PROBE = """
import importlib, importlib.util, sys
from builder.warp_backend.shipped_import import OPTIONAL_PACKAGES, _hide_optional_packages
import torch  # installed with the train extra: hidden even when already imported
_hide_optional_packages()
for name in OPTIONAL_PACKAGES:
    assert importlib.util.find_spec(name) is None, name
    for attempt in (lambda: importlib.import_module(name), lambda: __import__(name), lambda: exec(f"import {name}")):
        try:
            attempt()
        except ModuleNotFoundError as exc:
            assert exc.name == name, (name, exc.name)
        else:
            raise AssertionError(f"{name} imported")
for sub in ("torch.nn", "pxr.Usd"):
    try:
        importlib.util.find_spec(sub)
    except ModuleNotFoundError:
        pass  # what find_spec does for a submodule of a package that is not installed
    else:
        raise AssertionError(sub)
assert importlib.util.find_spec("numpy") is not None  # nothing else is hidden
print("absent")
"""


def test_hidden_packages_are_absent_to_import_find_spec_and_import_module():
    proc = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip() == "absent", proc.stderr
