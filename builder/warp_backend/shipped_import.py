"""Import one shipped warp module in a child process and emit every kernel it defines: the only part of the
``real`` config that imports Warp modules.

A module is imported, never run: examples keep their main code under ``if __name__ == "__main__"`` and test
modules only register tests. The import happens in a forked child with a time limit, so whatever a module does
at import (registering tests, changing Warp's settings, starting threads) stays in that child, and a module that
hangs is killed. The child sends back plain data: each kernel's stand-alone source and emitted units, or why a
kernel or the whole module could not be used.
"""

from __future__ import annotations

import importlib
import multiprocessing as mp
import re
import sys
import traceback
from dataclasses import dataclass, field

from builder.configs import UNITS
from builder.errors import ExtractError, WarpRejected
from builder.schema import TARGETS
from builder.shipped.extract import block_dim_in_source, extract, nested_kernel_defs, star_imports
from builder.shipped.modules import ShippedModule
from builder.warp_backend import codegen

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


# The types a derived instance tries for a generic parameter, spelled as a package would write them, in order. The
# first, float32, is Warp's default float type; the others only where Warp rejects it (a value the body uses as a
# vector, an output that holds a gradient)
_ANY_CHOICES = ("wp.float32", "wp.array(dtype=wp.float32)", "wp.array(dtype=wp.vec3)", "wp.vec3")
_DTYPE_CHOICES = ("wp.float32", "wp.vec3", "wp.mat33")


def derive_overload(kernel, struct_instances: tuple[tuple[str, str], ...] = ()) -> str:
    """Declare an instance of a generic kernel its package never instantiates (only for packages used for
    training: ``Package.use``) and return the declaration as source, or "" when Warp generates code for none.

    A generic kernel has no code until it is given types; its package instantiates it at launch with whatever
    arrays it is handed. The instance made here: ``typing.Any`` becomes ``wp.float32``, an array of ``Any`` an
    array of ``wp.float32`` of the same dimension, an array of float vectors of any length one of ``wp.vec3``, and
    an ``Any`` parameter that ``struct_instances`` names (``Package.struct_instances``) the struct the package's
    own dispatch passes there. Where Warp rejects that, the other ``_ANY_CHOICES`` (for every other bare ``Any`` at
    once) and ``_DTYPE_CHOICES`` (for every array of ``Any`` at once) are tried in order, and the first Warp
    generates code for is kept. The declaration, ``wp.overload(kernel, {name: type, ...})``, is what the package
    would write, so it goes into the row's source (``_one_kernel``) and the fidelity reference runs it
    (``builder.warp_backend.public``). An instance Warp cannot generate code for is taken back.
    """
    import fnmatch
    import itertools
    import typing

    import warp as wp
    from warp._src import types as t
    from warp._src.codegen import Struct

    namespace = {"wp": wp, **kernel.func.__globals__}
    fixed, any_args, array_args = {}, [], {}  # name -> spelled type; bare Any; array of Any -> its ndim
    for a in kernel.adj.args:
        if not t.type_is_generic(a.type):
            continue
        struct = next((name for pat, name in struct_instances if fnmatch.fnmatchcase(a.label, pat)), None)
        if a.type is typing.Any and struct is not None:
            if not isinstance(namespace.get(struct), Struct):
                return ""  # the module does not see that struct by that name: the declaration could not run there
            fixed[a.label] = struct
        elif a.type is typing.Any:
            any_args.append(a.label)
        elif t.is_array(a.type) and type(a.type) is t.array and a.type.dtype is typing.Any:
            array_args[a.label] = a.type.ndim
        elif t.is_array(a.type) and type(a.type) is t.array and t.type_is_vector(a.type.dtype):
            fixed[a.label] = f"wp.array(dtype=wp.vec3, ndim={a.type.ndim})"
        else:
            return ""
    tries = itertools.product(_ANY_CHOICES if any_args else ("",), _DTYPE_CHOICES if array_args else ("",))
    for any_type, dtype in tries:
        chosen = {**fixed, **dict.fromkeys(any_args, any_type)}
        chosen |= {k: f"wp.array(dtype={dtype}, ndim={nd})" for k, nd in array_args.items()}
        spelled = {a.label: chosen[a.label] for a in kernel.adj.args if a.label in chosen}  # argument order
        concrete = {k: eval(v, namespace) for k, v in spelled.items()}  # noqa: S307 - the spellings above
        try:
            inst = wp.overload(kernel, concrete)
        except (TypeError, RuntimeError):
            continue
        try:  # Warp type-checks the body only when it generates code: a float32 that is really a struct fails here
            codegen.emit_kernel(f"{kernel.key} (derived instance)", inst, ("cpu",))
        except WarpRejected:
            del kernel.overloads[inst.sig]
            continue
        types = ", ".join(f'"{k}": {v}' for k, v in spelled.items())
        return f"wp.overload({kernel.func.__name__}, {{{types}}})"
    return ""


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


def bindings(func, names: tuple[str, ...]) -> dict[str, str]:
    """Python expressions for the values ``func`` sees under ``names`` (its closure, then its globals), for the
    values that have one: literals and Warp's scalar, vector, matrix, quaternion and transform types."""
    from warp._src.codegen import get_closure_vars

    # what Warp resolves a free name from; then names only annotations read (evaluated once, at definition)
    scope = func.__globals__ | get_closure_vars(func) | annotation_names(func)
    out = {}
    for name in names:
        if name not in scope:
            continue
        expr = value_expr(scope[name])
        if expr is not None:
            out[name] = expr
    return out


def star_bound(func, modules: list[str], names: tuple[str, ...]) -> frozenset[str]:
    """The ``names`` that one of ``modules`` (a module's ``from M import *`` targets) binds, by ``import *``'s own
    rule (``__all__``, else every name without a leading underscore), to the very object ``func`` sees: a source
    that keeps those imports resolves them as the module did. Any other unresolved name stays unresolved."""
    seen = func.__globals__
    out = set()
    for name in modules:
        mod = sys.modules.get(name)
        if mod is None:
            continue
        public = getattr(mod, "__all__", None)
        for n in names:
            if n not in seen or (n not in public if public is not None else n.startswith("_")):
                continue
            if getattr(mod, n, _MISSING) is seen[n]:
                out.add(n)
    return frozenset(out)


_MISSING = object()


def annotation_names(func) -> dict:
    """Names an argument annotation reads as its dtype (``wp.array2d[wp_type]``, ``wp.array(dtype=T)``), mapped to
    the dtype of the evaluated annotation: a factory's local used only in annotations is no closure variable."""
    import ast
    import inspect
    import textwrap

    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(func)))
    except (OSError, TypeError, SyntaxError):
        return {}
    node = next((n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)), None)
    if node is None:
        return {}
    out = {}
    for arg in node.args.args:
        ann, value = arg.annotation, func.__annotations__.get(arg.arg)
        dtype = getattr(value, "dtype", None)
        if ann is None or dtype is None:
            continue
        if isinstance(ann, ast.Subscript) and isinstance(ann.slice, ast.Name):
            out[ann.slice.id] = dtype
        elif isinstance(ann, ast.Call):
            for kw in ann.keywords:
                if kw.arg == "dtype" and isinstance(kw.value, ast.Name):
                    out[kw.value.id] = dtype
    return out


def value_expr(value) -> str | None:
    import warp as wp
    from warp._src import types as t

    if value is None or isinstance(value, (bool, int, float, str)):
        return repr(value)
    if not isinstance(value, type):
        return None
    public = getattr(wp, getattr(value, "__name__", ""), None)
    if public is value:
        return f"wp.{value.__name__}"
    for name in ("vec2", "vec3", "vec4", "mat22", "mat33", "mat44", "quat", "transform", "spatial_vector"):
        if getattr(wp, name) is value:
            return f"wp.{name}"
    scalar = getattr(value, "_wp_scalar_type_", None)
    dtype = value_expr(scalar) if scalar is not None else None
    if dtype is None:
        return None
    if t.type_is_quaternion(value):
        return f"wp.types.quaternion(dtype={dtype})"
    if t.type_is_transformation(value):
        return f"wp.types.transformation(dtype={dtype})"
    if t.type_is_matrix(value):
        return f"wp.types.matrix(shape={tuple(value._shape_)!r}, dtype={dtype})"
    if t.type_is_vector(value):
        return f"wp.types.vector(length={value._length_}, dtype={dtype})"
    return None


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


def _child(mod: ShippedModule, configs: tuple[str, ...], conn) -> None:
    result = ModuleResult(mod)
    try:
        codegen.init()
        # The forked child inherits the parent's @wp.func numbering, so a parent that had generated a
        # contact_force made this module's contact_force_1; name them as a fresh process importing it would.
        codegen.reset_function_numbering()
        _hide_optional_packages(mod.package.needs)
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


def collect(mod: ShippedModule, configs: tuple[str, ...] = tuple(TARGETS), timeout: float = 120):
    """Import ``mod`` in a forked child (killed after ``timeout`` seconds) and return its ``ModuleResult``."""
    codegen.init()  # the child inherits an initialised Warp and kernel cache
    ctx = mp.get_context("fork")
    recv, send = ctx.Pipe(duplex=False)
    child = ctx.Process(target=_child, args=(mod, configs, send), daemon=True)
    child.start()
    send.close()
    try:
        if recv.poll(timeout):
            try:
                return recv.recv()
            except EOFError:
                pass
            child.join(10)
            return ModuleResult(mod, skipped=f"import crashed (exit {child.exitcode})")
        return ModuleResult(mod, skipped="import timed out")
    finally:
        recv.close()
        if child.is_alive():
            child.kill()
        child.join()
