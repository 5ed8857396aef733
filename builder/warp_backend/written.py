"""Warp's code for a written kernel's stand-alone source (a ``derived`` variant of a ``real`` train kernel): the
units of every target and pass, and the kernel's arguments as ``real`` rows name them.

A written source may import its package (``from warp_jsb.propulsion import ...``), whose ``@wp.func``s take
Warp's process-wide function numbers when first imported: in a process that imported it before, the source's own
``compute_full_dynamics_derivative`` became ``_0`` where a fresh process (a user's, Warp's public pipeline) writes
``_1``. ``emit_fresh`` therefore emits each source in a child forked for it, with Warp's numbering reset, as a fresh
process would.

A fresh child imports the source's package again for every variant (newton: about 2 s). ``Zygote`` pays that once
for all variants of one source kernel: a child forked with Warp's numbering reset runs the source's leading import
statements, then forks one grandchild per variant, which sets the counts a fresh process would have when the
variant's own functions are defined (its own names restarted, as ``codegen.load_sources`` restarts them, before
the imports counted theirs) and emits the variant. ``validate`` regenerates every row with ``emit_fresh``, so a
difference would fail it.

``execute_fresh`` runs the kernel on the CPU, also in a forked child: on inputs built from its argument types
(``shipped_inputs``, as the evaluator runs ``real`` rows), compiled by Warp in debug mode, whose bounds checks end
the process on an out-of-range access instead of reading another array's memory. A child that dies that way only
marks the variant not executed. With one precompiled header per build process (``pch_dir``) a variant's debug
compile and launches take about 0.2 s; ``written_runs.execute_many`` runs a shard's variants from one build.
"""

from __future__ import annotations

import ast
import faulthandler
import multiprocessing as mp
import os
import signal
import time
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
    return _emit_loaded(label, module, namespaces[0], kernel_name)


def _emit_loaded(label: str, module, namespace: dict, kernel_name: str) -> Written:
    try:
        kernel = codegen._named_kernel(namespace, kernel_name, label)
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
    try:
        codegen.reset_function_numbering()
        conn.send(("ok", _execute(source, kernel_name, arg_types, backward, trials, pch_dir)))
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


def leading_imports(source: str) -> str:
    """The source's import statements when they all come first (after a docstring): what a fresh process runs
    before any of the source's own definitions. "" when an import follows any other statement (nothing is run
    ahead then: a variant is emitted as ``emit_fresh`` emits it)."""
    try:
        body = ast.parse(source).body
    except SyntaxError:
        return ""
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    n = next((i for i, node in enumerate(body) if not isinstance(node, (ast.Import, ast.ImportFrom))), len(body))
    if any(isinstance(node, (ast.Import, ast.ImportFrom)) for rest in body[n:] for node in ast.walk(rest)):
        return ""
    return "\n".join(ast.get_source_segment(source, node) for node in body[:n])


class Zygote:
    """A forked child that has run one source's leading imports and forks a grandchild per variant (see the module
    docstring). Use as a context manager; ``emit`` answers as ``emit_fresh`` does."""

    def __init__(self, imports: str, timeout: float = 300.0):
        self.imports, self.timeout = imports, timeout
        self.broken = False

    def __enter__(self) -> Zygote:
        codegen.init()
        ctx = mp.get_context("fork")
        self.conn, child_conn = ctx.Pipe()
        self.child = ctx.Process(target=self._serve, args=(child_conn,), daemon=True)
        self.child.start()
        child_conn.close()
        return self

    def __exit__(self, *exc) -> None:
        try:
            self.conn.send(None)
        except OSError:
            pass
        self.child.join(10)
        if self.child.is_alive():
            self.child.kill()
            self.child.join()
        self.conn.close()

    def _serve(self, conn) -> None:
        fresh = codegen.fresh_function_numbering()
        codegen.set_function_numbering(fresh)
        imported = True
        try:
            exec(compile(self.imports, "<imports>", "exec"), {})
        except BaseException:  # noqa: BLE001 - each variant then runs its imports itself, and fails as Warp does
            imported = False
        after = codegen.function_numbering()
        while (request := conn.recv()) is not None:
            pid = os.fork()
            if pid == 0:  # the grandchild: one variant
                try:
                    self._variant(conn, request, fresh, after if imported else None)
                finally:
                    os._exit(0)
            _, status = os.waitpid(pid, 0)
            conn.send(("done", os.waitstatus_to_exitcode(status)))

    @staticmethod
    def _variant(conn, request: tuple, fresh: dict, after: dict | None) -> None:
        label, source, module_name, kernel_name = request
        conn.send(("pid", os.getpid()))
        own = codegen.own_function_keys(source, list(after or {}))
        # an import that failed, or that numbered one of the variant's own names from a count Warp's own import
        # left: this process is not a fresh one for that variant, and the parent emits it with emit_fresh
        if after is None or any(fresh.get(k, 0) and after.get(k, 0) != fresh.get(k, 0) for k in own):
            conn.send(("fallback", None))
            return
        # as emit_fresh: the variant's own names restart before the imports count theirs
        codegen.set_function_numbering(after | {k: after[k] - fresh.get(k, 0) for k in own})
        try:
            written = _emit_numbered(label, source, module_name, kernel_name)
        except WarpRejected as exc:
            conn.send(("rejected", (exc.label, exc.kernel, exc.message)))
            return
        except BaseException as exc:  # noqa: BLE001 - reported to the parent, which raises it as Warp's rejection
            conn.send(("rejected", (label, kernel_name, f"{type(exc).__name__}: {exc}")))
            return
        conn.send(("emitted", written))

    def emit(self, label: str, source: str, module_name: str, kernel_name: str) -> Written:
        """One variant's ``Written``; raises ``WarpRejected`` as ``emit_fresh`` does."""
        got = {"fallback": None}
        if not self.broken:
            try:
                got = self._ask((label, source, module_name, kernel_name))
            except (EOFError, OSError, TimeoutError):  # the zygote is gone or stuck: every variant from now fresh
                self.broken = True
        if "fallback" in got:
            return emit_fresh(label, source, module_name, kernel_name, self.timeout)
        if "rejected" in got:
            raise WarpRejected(*got["rejected"])
        if "emitted" not in got:
            if "timeout" in got:
                raise WarpRejected(label, kernel_name, f"TimeoutError: code generation took over {self.timeout:.0f} s")
            raise WarpRejected(label, kernel_name, f"ChildProcessError: exit code {got['done']}")
        return got["emitted"]

    def _ask(self, request: tuple) -> dict:
        """Send one variant and collect its grandchild's messages until the zygote reports it ended; a grandchild
        over its time is killed and ``timeout`` recorded."""
        self.conn.send(request)
        got: dict = {}
        deadline = time.monotonic() + self.timeout
        while "done" not in got:
            if not self.conn.poll(max(0.0, deadline - time.monotonic())):
                if "timeout" in got or "pid" not in got:
                    raise TimeoutError("the variant's process did not start or end")
                os.kill(got["pid"], signal.SIGKILL)
                got["timeout"], deadline = True, time.monotonic() + 30
                continue
            kind, value = self.conn.recv()
            got[kind] = value
        return got


def _emit_numbered(label: str, source: str, module_name: str, kernel_name: str) -> Written:
    """``emit_written`` with Warp's function numbering as the caller set it (not restarted for the source)."""
    module, namespaces = codegen.load_sources([(label, source)], module_name, restart_numbering=False)
    return _emit_loaded(label, module, namespaces[0], kernel_name)


def _execute(
    source: str, kernel_name: str, arg_types: list[str], backward: bool, trials: list, pch_dir: str | None
) -> Execution:
    """Run the kernel of ``source`` (its overload of ``arg_types``) on each trial, in this process (a child)."""
    from builder.errors import NotEvaluable
    from builder.warp_backend import splice_run

    faulthandler.disable()  # a failed bounds check ends this child: that is the evidence, not a crash to report
    try:
        if pch_dir:
            splice_run.share_pch_dir(pch_dir)
        row = {"python_source": source, "kernel_name": kernel_name, "arg_types": list(arg_types)}
        return assess(splice_run.real_run(row, None, "cpu", backward, trials), len(trials))
    except NotEvaluable as exc:
        return Execution(None, reason=f"inputs: {exc}")
    except BaseException as exc:  # noqa: BLE001 - any failure to run is the evidence: not executed
        return Execution(False, reason=f"{type(exc).__name__}: {str(exc)[:200]}")
