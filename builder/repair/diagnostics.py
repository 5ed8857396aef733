"""A diagnostic as a user reads it: Warp's exception class, its message, and the line of the kernel it names.

Warp names the file it read a kernel from; rows are loaded as ``kernel.py`` (``warp_backend.codegen.SOURCE_FILE``),
so a message names that bare file and no directory of the machine that built the row. The diff is the repair, in
the unified format ``git diff`` and ``patch`` read, from the broken kernel to the working one.
"""

from __future__ import annotations

import difflib
import re
from typing import NamedTuple

SOURCE_FILE = "kernel.py"
_LINE = re.compile(rf"\b{re.escape(SOURCE_FILE)}:(\d+)\b")
# what no message of a row may hold: a directory of the machine that built it, or an object's address
MACHINE_SPECIFIC = re.compile(r"(?<![\w.])/(?:[\w.-]+/)+[\w.-]+|\b0x[0-9a-fA-F]{6,}\b")


class Diagnostic(NamedTuple):
    error_class: str  # the exception's class name: WarpCodegenError, WarpCodegenKeyError, RuntimeError, ...
    message: str  # str() of the exception
    line: int | None  # the kernel line the message points at (None: Warp names none, e.g. a missing annotation)


def parse(rejection: str) -> Diagnostic:
    """A Warp rejection as ``builder.errors.WarpRejected`` words it (``"ClassName: message"``)."""
    error_class, _, message = rejection.partition(": ")
    found = _LINE.search(message)
    return Diagnostic(error_class, message, int(found.group(1)) if found else None)


def machine_specific(message: str) -> str | None:
    """The first path or address in ``message`` (None when it holds none)."""
    found = MACHINE_SPECIFIC.search(message)
    return found.group(0) if found else None


def diff(broken: str, fixed: str) -> str:
    """The unified diff that turns ``broken`` into ``fixed`` (three lines of context)."""
    lines = difflib.unified_diff(
        broken.splitlines(True), fixed.splitlines(True), f"a/{SOURCE_FILE}", f"b/{SOURCE_FILE}"
    )
    return "".join(lines)
