"""Warp's code for a written kernel's stand-alone source (a ``derived`` variant of a ``real`` train kernel): the
units of every target and pass, and the kernel's arguments as ``real`` rows name them."""

from __future__ import annotations

from dataclasses import dataclass

from warp._src import types as wp_types

from builder.configs import UNITS
from builder.errors import WarpRejected
from builder.warp_backend import codegen


@dataclass(frozen=True)
class Written:
    units: dict[str, codegen.Unit]  # by unit name; no backward unit where the kernel disables its adjoint
    arg_names: list[str]
    arg_types: list[str]


def emit_written(label: str, source: str, module_name: str, kernel_name: str) -> Written:
    """Load ``source`` as its own module and emit the kernel ``kernel_name`` (a generic kernel's first declared
    overload) alone in its unit, as ``real``'s rows are emitted; ``WarpRejected`` with Warp's error otherwise."""
    module, namespaces = codegen.load_sources([(label, source)], module_name)
    try:
        kernel = codegen._named_kernel(namespaces[0], kernel_name, label)
        units = tuple(u for u in UNITS if UNITS[u].pass_ == "forward" or codegen.backward_enabled(kernel))
        emitted = codegen.emit_kernel(label, kernel, units)
        args = kernel.adj.args
        return Written(emitted, [a.label for a in args], [wp_types.type_repr(a.type) for a in args])
    except WarpRejected:
        raise
    except Exception as exc:  # noqa: BLE001 - Warp raises many types; the caller counts them by reason
        raise WarpRejected(label, kernel_name, f"{type(exc).__name__}: {exc}") from exc
    finally:
        codegen.release(module)
