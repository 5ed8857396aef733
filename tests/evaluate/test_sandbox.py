"""The child's limits, in real subprocesses."""

from __future__ import annotations

import subprocess
import sys

import pytest

from builder.errors import ConfigError
from builder.evaluate.sandbox import Limits


def test_memory_limit_stops_a_large_allocation():
    code = (
        "from builder.evaluate.child import limit_memory\n"
        "limit_memory(256)\n"
        "try:\n    b = bytearray(1 << 30)\nexcept MemoryError:\n    print('limited')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "limited"


@pytest.mark.parametrize("kwargs", [{"timeout_s": 0}, {"timeout_s": -1.0}, {"memory_mb": -1}])
def test_limits_validate(kwargs):
    with pytest.raises(ConfigError):
        Limits(**kwargs)
