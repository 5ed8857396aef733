"""What importing one shipped module gives back (``shipped_import``): its kernels' sources and emitted units, or why
a kernel or the module could not be used, as short countable reasons. Plain data, sent from the importing child."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from builder.shipped.modules import ShippedModule


@dataclass
class KernelResult:
    """One concrete kernel (a generic kernel's overload counts as its own) of a shipped module."""

    key: str
    qualname: str  # the Python function's qualified name in its module (a factory's: outer.<locals>.inner)
    signature: str  # "" unless an overload of a generic kernel
    line: int
    python_source: str
    unresolved: tuple[str, ...]
    nested: bool
    arg_names: list[str]
    arg_types: list[str]
    backward: bool  # enable_backward is on for it
    tile: bool  # uses the tile API (block_dim matters)
    units: dict[str, tuple[str, str, str]] = field(default_factory=dict)  # config -> (tu, ir, entry)
    skipped: dict[str, str] = field(default_factory=dict)  # config -> reason Warp could not emit it


@dataclass
class ModuleResult:
    module: ShippedModule
    skipped: str = ""  # why the module could not be imported ("" when it was)
    kernels: list[KernelResult] = field(default_factory=list)
    not_emitted: dict[str, int] = field(default_factory=dict)  # reason -> kernels (generic without overloads...)


def import_reason(exc: BaseException) -> str:
    """Why a module failed to import, as a short countable reason."""
    if isinstance(exc, ModuleNotFoundError) and exc.name:
        root = exc.name.split(".")[0]
        return f"needs {root}" if root != "warp" else f"import error: {exc.name} missing"
    text = f"{type(exc).__name__}: {exc}".lower()
    if "cuda" in text and ("device" in text or "not available" in text or "driver" in text):
        return "needs a CUDA device at import"
    return f"import error: {type(exc).__name__}"


def emit_reason(message: str) -> str:
    """A countable reason from Warp's error: its type and last line, without the code excerpt or numbers."""
    kind, _, rest = message.partition(":")
    last = rest.strip().splitlines()[-1].lstrip(";").strip() if rest.strip() else ""
    last = re.sub(r" at \S+\.py\S*", "", last)  # the file path is the machine's, not part of the reason
    return re.sub(r"\d+", "N", f"{kind}: {last}")[:100]
