"""Warp's code for a written kernel's stand-alone source (a ``derived`` variant of a ``real`` train kernel): the
units of every target and pass, and the kernel's arguments as ``real`` rows name them.

A written source may import its package (``from warp_jsb.propulsion import ...``), whose ``@wp.func``s take
Warp's process-wide function numbers when first imported: in a process that imported it before, the source's own
``compute_full_dynamics_derivative`` became ``_0`` where a fresh process (a user's, Warp's public pipeline) writes
``_1``. ``emit_fresh`` therefore emits each source in a child forked for it, with Warp's numbering reset, as a fresh
process would.
"""

from __future__ import annotations

import multiprocessing as mp
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


def _child(conn, label: str, source: str, module_name: str, kernel_name: str) -> None:
    try:
        codegen.reset_function_numbering()
        conn.send(("ok", emit_written(label, source, module_name, kernel_name)))
    except WarpRejected as exc:
        conn.send(("rejected", (exc.label, exc.kernel, exc.message)))
    except BaseException as exc:  # noqa: BLE001 - reported to the parent, which raises it as Warp's rejection
        conn.send(("rejected", (label, kernel_name, f"{type(exc).__name__}: {exc}")))
    finally:
        conn.close()


def emit_fresh(label: str, source: str, module_name: str, kernel_name: str, timeout: float = 300.0) -> Written:
    """``emit_written`` in a forked child, as a fresh process emits it (see the module docstring)."""
    codegen.init()  # the child inherits an initialised Warp
    ctx = mp.get_context("fork")
    recv, send = ctx.Pipe(duplex=False)
    child = ctx.Process(target=_child, args=(send, label, source, module_name, kernel_name), daemon=True)
    child.start()
    send.close()
    try:
        if not recv.poll(timeout):
            raise WarpRejected(label, kernel_name, f"TimeoutError: code generation took over {timeout:.0f} s")
        try:
            status, value = recv.recv()
        except EOFError:
            child.join(10)
            raise WarpRejected(label, kernel_name, f"ChildProcessError: exit code {child.exitcode}") from None
        if status != "ok":
            raise WarpRejected(*value)
        return value
    finally:
        recv.close()
        if child.is_alive():
            child.kill()
        child.join()
