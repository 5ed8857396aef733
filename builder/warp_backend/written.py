"""Warp's code for a written kernel's stand-alone source (a ``derived`` variant of a ``real`` train kernel): the
units of every target and pass, and the kernel's arguments as ``real`` rows name them.

A written source may import its package (``from warp_jsb.propulsion import ...``), whose ``@wp.func``s take
Warp's process-wide function numbers when first imported: in a process that imported it before, the source's own
``compute_full_dynamics_derivative`` became ``_0`` where a fresh process (a user's, Warp's public pipeline) writes
``_1``. ``emit_fresh`` therefore emits each source in a child forked for it, with Warp's numbering reset, as a fresh
process would.

``execute_fresh`` runs the kernel on the CPU, also in a forked child: on inputs built from its argument types
(``shipped_inputs``, as the evaluator runs ``real`` rows), compiled by Warp in debug mode, whose bounds checks end
the process on an out-of-range access instead of reading another array's memory. A child that dies that way only
marks the variant not executed. With one precompiled header per build process (``pch_dir``) a variant's debug
compile and launches take about 0.35 s.
"""

from __future__ import annotations

import multiprocessing as mp
from dataclasses import dataclass

import numpy as np
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


@dataclass(frozen=True)
class Execution:
    """What running a written kernel on built inputs showed; ``executed`` is None when an argument cannot be built
    from its type (``reason`` says which), False when Warp raised or the child died (a failed bounds check)."""

    executed: bool | None
    outputs_finite: bool | None = None
    outputs_nondegenerate: bool | None = None
    grads_finite: bool | None = None
    reason: str = ""

    @property
    def passed(self) -> bool:
        """Ran, and left finite, changed outputs and finite gradients: the evidence of a generated execute row."""
        return bool(self.executed and self.outputs_finite and self.outputs_nondegenerate and self.grads_finite)


def assess(arrays: dict[str, np.ndarray], trials: int) -> Execution:
    """Judge ``trial_run.run``'s arrays: finite (every float array after the forward launch), non-degenerate (each
    trial's launch changed some array) and finite gradients. Which arrays a written kernel writes is not recorded,
    so every array counts."""

    def floats(stage: str) -> list[np.ndarray]:
        return [v for k, v in arrays.items() if k.split("/")[1] == stage and v.dtype.kind in "fc"]

    changed = [
        any(
            not np.array_equal(arrays[k], arrays[k.replace("/out/", "/pre/", 1)], equal_nan=True)
            for k in arrays
            if k.startswith(f"{t}/out/")
        )
        for t in range(trials)
    ]
    return Execution(
        True,
        all(np.isfinite(v).all() for v in floats("out")),
        all(changed),
        all(np.isfinite(v).all() for v in floats("grad")),
    )


def _run_child(conn, source: str, kernel_name: str, arg_types: list[str], backward: bool, trials, pch_dir) -> None:
    from builder.errors import NotEvaluable
    from builder.warp_backend import splice_run

    try:
        codegen.reset_function_numbering()
        if pch_dir:
            splice_run.share_pch_dir(pch_dir)
        row = {"python_source": source, "kernel_name": kernel_name, "arg_types": arg_types}
        conn.send(("ok", assess(splice_run.real_run(row, None, "cpu", backward, trials), len(trials))))
    except NotEvaluable as exc:
        conn.send(("ok", Execution(None, reason=f"inputs: {exc}")))
    except BaseException as exc:  # noqa: BLE001 - any failure to run is the evidence: not executed
        conn.send(("ok", Execution(False, reason=f"{type(exc).__name__}: {str(exc)[:200]}")))
    finally:
        conn.close()


def execute_fresh(
    source: str,
    kernel_name: str,
    arg_types: list[str],
    backward: bool,
    trials: list,
    pch_dir: str | None = None,
    timeout: float = 120.0,
) -> Execution:
    """Run ``source``'s kernel (its overload of ``arg_types``) and its adjoint if ``backward`` on each trial
    (``seed``, ``launch``) in a forked child (see the module docstring)."""
    codegen.init()
    ctx = mp.get_context("fork")
    recv, send = ctx.Pipe(duplex=False)
    args = (send, source, kernel_name, list(arg_types), backward, trials, pch_dir)
    child = ctx.Process(target=_run_child, args=args, daemon=True)
    child.start()
    send.close()
    try:
        if not recv.poll(timeout):
            return Execution(False, reason=f"TimeoutError: ran over {timeout:.0f} s")
        try:
            return recv.recv()[1]
        except EOFError:
            child.join(10)
            return Execution(False, reason=f"ChildProcessError: exit code {child.exitcode} (a failed bounds check)")
    finally:
        recv.close()
        if child.is_alive():
            child.kill()
        child.join()
