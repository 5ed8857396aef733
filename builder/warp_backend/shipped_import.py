"""Import one shipped warp module in a child process and emit every kernel it defines: the only part of the
``real`` config that imports Warp modules.

A module is imported, never run: examples keep their main code under ``if __name__ == "__main__"`` and test
modules only register tests. The import happens in a forked child with a time limit, so whatever a module does
at import (registering tests, changing Warp's settings, starting threads) stays in that child, and a module that
hangs is killed. The child sends back plain data: each kernel's stand-alone source and emitted units, or why a
kernel or the whole module could not be used.
"""

from __future__ import annotations

import ctypes
import importlib
import multiprocessing as mp
import os
import signal
import sys
import time
import traceback

from builder.configs import UNITS
from builder.errors import ExtractError, WarpRejected
from builder.shipped.extract import extract, star_imports
from builder.shipped.launches import block_dim_in_source, nested_kernel_defs
from builder.shipped.modules import ShippedModule
from builder.warp_backend import codegen
from builder.warp_backend.shipped_names import bindings, derive_overload, star_bound
from builder.warp_backend.shipped_results import KernelResult, ModuleResult, emit_reason, import_reason

# Packages the build does not install: a module importing one is skipped and counted under its name.
OPTIONAL_PACKAGES = ("pxr", "torch", "jax", "jaxlib", "cupy", "paddle", "numba", "taichi", "pyglet", "OpenGL", "usd")


def _hide_optional_packages(keep: tuple[str, ...] = ()) -> None:
    """Make ``OPTIONAL_PACKAGES`` absent in the importing child even where they are installed (the ``train``
    extra brings torch), so the real config is the same on every machine. ``keep`` are those a package is collected
    with (``Package.needs``: its extra installs them).

    ``sys.modules[name] = None`` is how the import system itself spells "absent": ``import``,
    ``importlib.import_module`` and ``importlib.util.find_spec`` (which returns None for it, as for a package that
    was never installed) all see the same thing. A finder that raised instead made ``find_spec("pxr")`` raise in
    warp's own test utilities, and every test module importing them was skipped.
    """
    hidden = [n for n in OPTIONAL_PACKAGES if n not in keep]
    for name in [n for n in sys.modules if n.partition(".")[0] in hidden]:
        del sys.modules[name]
    for name in hidden:
        sys.modules[name] = None


def _kernels_of(name: str) -> list:
    """The live kernels whose Python function belongs to module ``name``, in source order."""
    from warp._src import context as ctx

    found = {}
    for wm in list(ctx.user_modules.values()):
        for k in wm.kernels.values():
            if getattr(k.func, "__module__", None) == name:
                found[(k.func.__code__.co_firstlineno, k.key, id(k))] = k
    return [found[x] for x in sorted(found, key=lambda t: t[:2])]


def _one_kernel(
    mod: ShippedModule, text: str, kernel, configs: tuple[str, ...], block_dim: int | None, declared: str = ""
):
    """The rows' material for one kernel of ``mod``: one ``KernelResult`` per concrete instance. ``declared``: the
    overload ``derive_overload`` declared, appended to the source as the package would have written it."""
    from warp._src import types as wp_types

    line = kernel.func.__code__.co_firstlineno
    package = mod.name if mod.path.endswith("/__init__.py") else mod.name.rpartition(".")[0]
    ex = extract(text, kernel.func.__name__, line, key=kernel.key, package=package)
    if ex.unresolved:
        bound = bindings(kernel.func, ex.unresolved)
        starred = star_bound(kernel.func, star_imports(text, package), ex.unresolved)
        if bound or starred:
            ex = extract(text, kernel.func.__name__, line, bound, key=kernel.key, package=package, starred=starred)
    out = []
    for sig, inst in codegen.kernel_instances(kernel):
        args = inst.adj.args
        res = KernelResult(
            key=kernel.key,
            qualname=kernel.func.__qualname__,
            signature=sig,
            line=line,
            python_source=ex.source if not declared else ex.source.rstrip("\n") + "\n\n" + declared + "\n",
            unresolved=ex.unresolved,
            nested=ex.nested,
            arg_names=[a.label for a in args],
            arg_types=[wp_types.type_repr(a.type) for a in args],
            backward=codegen.backward_enabled(inst),
            tile="tile" in ex.source,
        )
        for unit in configs:
            if UNITS[unit].pass_ == "backward" and not res.backward:
                continue  # not a failure: the kernel opts out of adjoints, so it has no backward row
            label = f"{mod.name}:{kernel.key}{sig}"
            try:
                u = codegen.emit_kernel(label, inst, (unit,), block_dim=block_dim)[unit]
                res.units[unit] = (u.tu, u.ir, u.entry, codegen.options_json(u.options))
            except WarpRejected as exc:
                res.skipped[unit] = emit_reason(exc.message)
        out.append(res)
    return out


def _import_through_package(name: str) -> None:
    """Import module ``name`` as users reach it: its top-level package first, and for a private ``_src`` module
    the public subpackage that re-exports it (importing it directly can enter a circular import that the
    package's own order avoids)."""
    parts = name.split(".")
    first = [parts[0]]
    if len(parts) > 3 and parts[1] == "_src":  # warp._src.fem.x through warp.fem, newton._src.sim.x through newton.sim
        first.append(f"{parts[0]}.{parts[2]}")
    for package in first:
        if package != name:
            try:
                importlib.import_module(package)
            except ImportError:
                pass
    importlib.import_module(name)


def _die_with(parent: int, reader) -> None:
    """Tie a forked import child to the worker that forked it. A worker the build stops (an interrupt terminates it)
    cannot end its children, and an orphan kept the worker's copy of its exit pipe open: the build waited for it
    forever, and it waited forever to send its result to a pipe only it could still read. So the child drops its
    copy of the read end (a dead parent then makes its send fail) and asks Linux to kill it when the parent dies."""
    reader.close()
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # no prctl (not Linux): the closed read end still ends a child that sends
        return
    if os.getppid() != parent:  # the parent died before the request was made
        os._exit(1)


def _prepare(mod: ShippedModule) -> None:
    """What an import child does before importing ``mod`` (also what a package's importer does once for all its
    modules: ``Collector``)."""
    codegen.init()
    # The forked child inherits the parent's @wp.func numbering, so a parent that had generated a
    # contact_force made this module's contact_force_1; name them as a fresh process importing it would.
    codegen.reset_function_numbering()
    _hide_optional_packages(mod.package.needs)


def _child(mod: ShippedModule, configs: tuple[str, ...], conn, parent: int, reader, prepared: bool = False) -> None:
    _die_with(parent, reader)
    result = ModuleResult(mod)
    try:
        if not prepared:
            _prepare(mod)
        try:
            _import_through_package(mod.name)
        except BaseException as exc:  # noqa: BLE001 - SystemExit included: a module may exit when it cannot run
            result.skipped = import_reason(exc)
            conn.send(result)
            return
        text = mod.file().read_text(encoding="utf-8")
        for kernel in _kernels_of(mod.name):
            declared = ""
            if kernel.is_generic and not kernel.overloads:
                declared = (
                    derive_overload(kernel, mod.package.struct_instances) if mod.package.use == "training" else ""
                )
                if not declared:
                    result.not_emitted["generic kernel without overloads"] = (
                        result.not_emitted.get("generic kernel without overloads", 0) + 1
                    )
                    continue
            try:
                block_dim = block_dim_in_source(text, kernel.func.__name__)
                result.kernels.extend(_one_kernel(mod, text, kernel, configs, block_dim, declared))
            except ExtractError:
                result.not_emitted["source not found"] = result.not_emitted.get("source not found", 0) + 1
        made = {k.func.__name__ for k in _kernels_of(mod.name)}
        for name in nested_kernel_defs(text):
            if name not in made:
                reason = "defined inside a function the import does not call (a factory or a test body)"
                result.not_emitted[reason] = result.not_emitted.get(reason, 0) + 1
        conn.send(result)
    except BaseException:  # noqa: BLE001 - reported to the parent as the module's reason
        result.skipped = "collector error: " + traceback.format_exc().strip().splitlines()[-1][:200]
        result.kernels = []
        conn.send(result)
    finally:
        conn.close()


def _top_package(mod: ShippedModule) -> str:
    return mod.name.partition(".")[0]


def _crashed(mod: ShippedModule, exitcode) -> ModuleResult:
    return ModuleResult(mod, skipped=f"import crashed (exit {exitcode})")


def _importer(top: str, mod: ShippedModule, conn, parent: int, reader) -> None:
    """A package's importer: prepared as an import child is and with the top-level package ``top`` imported, it
    forks one child per module the worker sends and relays that child's result (the pickled bytes, untouched).
    ``None`` ends it."""
    _die_with(parent, reader)
    try:
        _prepare(mod)
        importlib.import_module(top)
    except BaseException as exc:  # noqa: BLE001 - the worker then forks each module's child itself
        conn.send(f"{type(exc).__name__}: {exc}")
        return
    conn.send("")
    me = os.getpid()
    while True:
        request = conn.recv()
        if request is None:
            return
        mod, configs, timeout = request
        recv, send = mp.Pipe(duplex=False)
        pid = os.fork()
        if pid == 0:  # the module's child: what _child does in a child the worker forks, less what is done here
            code = 0
            try:
                conn.close()
                _child(mod, configs, send, me, recv, prepared=True)
            except BaseException:  # noqa: BLE001 - the exit code tells the importer it crashed
                code = 1
            finally:
                for stream in (sys.stdout, sys.stderr):
                    stream.flush()
                os._exit(code)
        send.close()
        try:
            if recv.poll(timeout):
                try:
                    conn.send_bytes(recv.recv_bytes())
                    continue
                except EOFError:
                    pass
                code, pid = _exit_code(pid, 10), 0  # reaped: nothing left to kill
                conn.send(_crashed(mod, code))
            else:
                conn.send(ModuleResult(mod, skipped="import timed out"))
        finally:
            recv.close()
            if pid:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                os.waitpid(pid, 0)


def _exit_code(pid: int, wait: float) -> int | None:
    """The exit code of child ``pid`` as ``multiprocessing`` reports it (minus the signal for a killed one), waiting
    at most ``wait`` seconds; None when it is still running (it is then killed and reaped)."""
    deadline = time.monotonic() + wait
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return None
        time.sleep(0.01)


class Collector:
    """Collects shipped modules, each imported in its own forked child, with a time limit.

    Each child is forked from a per-package importer that has already imported the module's top-level package
    (``newton`` takes over a second and a half to import, ``warpSPHCore`` brings torch), not from the worker: the
    child then imports what remains, in the order a fresh process would, so each module is collected exactly as
    before, and a shard of a package's modules imports the package once. An importer lives while consecutive
    modules share it; one whose package fails to import is replaced by the worker forking each child itself.
    """

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self._key: tuple | None = None
        self._importer = None  # (process, connection), or None: fork from the worker
        self._ctx = mp.get_context("fork")

    def __enter__(self) -> Collector:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        if self._importer is not None:
            process, conn = self._importer
            self._importer = None
            try:
                conn.send(None)
                process.join(10)
            except (OSError, EOFError, ValueError):
                pass
            finally:
                conn.close()
                if process.is_alive():
                    process.kill()
                process.join()
        self._key = None

    def collect(self, mod: ShippedModule, configs: tuple[str, ...] = tuple(UNITS)) -> ModuleResult:
        key = (_top_package(mod), mod.package.needs)
        if key != self._key:
            self.close()
            self._key = key
            self._importer = self._start(mod)
        if self._importer is None:
            return _collect_forked(mod, configs, self.timeout)
        process, conn = self._importer
        conn.send((mod, configs, self.timeout))
        # the importer times each child out itself; this only catches an importer that died or hung
        if conn.poll(self.timeout + 60):
            try:
                got = conn.recv()
                return got if isinstance(got, ModuleResult) else _crashed(mod, None)
            except EOFError:
                pass
        self.close()  # a broken importer: the next module starts another
        return _crashed(mod, process.exitcode)

    def _start(self, mod: ShippedModule):
        codegen.init()  # the importer inherits an initialised Warp and kernel cache
        mine, theirs = self._ctx.Pipe(duplex=True)
        process = self._ctx.Process(
            target=_importer, args=(_top_package(mod), mod, theirs, os.getpid(), mine), daemon=True
        )
        process.start()
        theirs.close()
        failed = "timed out"
        try:
            if mine.poll(self.timeout):
                failed = mine.recv()
        except EOFError:
            failed = "crashed"
        if not failed:
            return process, mine
        mine.close()
        if process.is_alive():
            process.kill()
        process.join()
        return None


def collect(mod: ShippedModule, configs: tuple[str, ...] = tuple(UNITS), timeout: float = 120):
    """Import ``mod`` in a forked child (killed after ``timeout`` seconds) and return its ``ModuleResult``."""
    with Collector(timeout) as collector:
        return collector.collect(mod, configs)


def _collect_forked(mod: ShippedModule, configs: tuple[str, ...], timeout: float) -> ModuleResult:
    """``collect`` with the child forked from this process (when the module's package importer could not start)."""
    codegen.init()  # the child inherits an initialised Warp and kernel cache
    ctx = mp.get_context("fork")
    recv, send = ctx.Pipe(duplex=False)
    child = ctx.Process(target=_child, args=(mod, configs, send, os.getpid(), recv), daemon=True)
    child.start()
    send.close()
    try:
        if recv.poll(timeout):
            try:
                return recv.recv()
            except EOFError:
                pass
            child.join(10)
            return _crashed(mod, child.exitcode)
        return ModuleResult(mod, skipped="import timed out")
    finally:
        recv.close()
        if child.is_alive():
            child.kill()
        child.join()
