"""What counts as Warp's diagnostic for a broken kernel: an exception Warp raised, never the builder's own words,
a crash or timeout, or a message that names a directory of the machine."""

from __future__ import annotations

import pytest

from builder.errors import WarpRejected
from builder.warp_backend.diagnose import _diagnostic

MESSAGE = 'Error while parsing function "k" at kernel.py:7:\n    x = y\n;Referencing undefined symbol: y'


@pytest.mark.parametrize(
    "words",
    [
        "generic kernel without overloads: no concrete types to emit",  # the builder's, not Warp's
        "enable_backward=False: Warp emits no backward kernel",
        "TimeoutError: code generation took over 300 s",
        "ChildProcessError: exit code -11",
        "ModuleNotFoundError: No module named 'newton'",
        'WarpCodegenError: Error while parsing function "k" at /home/someone/kernel.py:7: x',
    ],
)
def test_what_is_not_a_diagnostic(words):
    assert _diagnostic(WarpRejected("label", "k", words)) is None


def test_a_diagnostic_keeps_warps_class_message_and_line():
    dg = _diagnostic(WarpRejected("label", "k", f"WarpCodegenKeyError: {MESSAGE}"))
    assert (dg.error_class, dg.message, dg.line) == ("WarpCodegenKeyError", MESSAGE, 7)
