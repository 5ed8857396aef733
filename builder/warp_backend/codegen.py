"""The adapter to Warp's private code-generation API.

What the rows are made of goes through here (module options resolved as ``Module.load`` resolves them,
``Module._run_codegen``, the user-module registry and the caches a released module leaves), so a Warp upgrade that
changes codegen touches this file. Other modules reach private Warp for their own narrow jobs: ``compilers`` (Warp's
build functions and the runtime's compiler versions), ``standalone`` (launch bounds and argument packing as Warp's
launcher builds them), ``splice_run`` (the evaluator's child loads a prediction's unit into a module and points
Warp's precompiled-header folder at the job directory), ``shipped_names`` and ``shipped_import`` (closure variables
and type objects of shipped kernels, and the registry of live kernels). The text of what it emits is cut with
``units``; ``prologue`` tells Warp's shared prologue from a module's own code.

Kernels are built from source strings in-process: the source is registered with ``linecache`` (which is what
``inspect.getsource`` reads, so ``@wp.kernel``/``@wp.func`` work unchanged) and executed into a namespace whose
``__name__`` is a private Warp module.
"""

from __future__ import annotations

import atexit
import contextlib
import enum
import json
import linecache
import os
import re
import shutil
import sys
import tempfile
import types
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import warp as wp
from warp._src import context as _ctx
from warp._src import types as _wp_types

from builder.configs import UNITS
from builder.errors import WarpRejected
from builder.warp_backend.units import _portable, function, kernel_in

# strip_hash makes emitted names predictable (NAME_cuda_kernel_forward);
# a generic CPU target makes CPU results identical across host CPUs.
# Every other option is left at Warp's default and resolved by Warp (``resolved_options``).
MODULE_OPTIONS = {"strip_hash": True, "cpu_compiler_flags": ""}
CUDA_ARCH = 90


@dataclass(frozen=True)
class Unit:
    """What Warp's code generator produced for one kernel and one config."""

    tu: str  # the full translation unit of the kernel's module
    ir: str  # the config's function: __global__ forward/backward kernel, or the CPU forward kernel
    entry: str  # symbol to launch: the __global__ kernel, or the extern "C" CPU wrapper
    options: dict  # the resolved module options Warp generated the unit with (``resolved_options``)


def _unit_spec(config: str) -> tuple[str, str, str]:
    """(target, IR symbol suffix, entry symbol suffix) of a generated config; both passes share a target's unit."""
    target, _, suffix = UNITS[config].as_tuple()
    return target, suffix, suffix if target == "cuda" else "_cpu_forward"


_initialised_cache: str | None = None


KERNEL_CACHE_ENV = "WARP_CUDA_IR_KERNEL_CACHE"  # a build's own directory, shared by its worker processes


# Warp numbers @wp.func symbols with a process-wide counter per name; ``import warp`` itself has counted some
# (norm_l1, quat_from_euler, ...). These are the counts of a process that has imported Warp and nothing else.
_FRESH_FUNCTION_KEY_COUNTS = dict(_ctx.function_key_counts)


def reset_function_numbering() -> None:
    """Number @wp.func symbols defined from now on as a fresh process that only imported Warp would."""
    _ctx.function_key_counts.clear()
    _ctx.function_key_counts.update(_FRESH_FUNCTION_KEY_COUNTS)


def function_numbering() -> dict[str, int]:
    """Warp's function-numbering counts now (``set_function_numbering`` puts them back)."""
    return dict(_ctx.function_key_counts)


def fresh_function_numbering() -> dict[str, int]:
    """The counts of a fresh process that only imported Warp."""
    return dict(_FRESH_FUNCTION_KEY_COUNTS)


def set_function_numbering(counts: dict[str, int]) -> None:
    _ctx.function_key_counts.clear()
    _ctx.function_key_counts.update(counts)


def init() -> str:
    """Initialise Warp once per process, with a private kernel cache when we own the process.

    The cache lives in ``$WARP_CUDA_IR_KERNEL_CACHE`` (the CLI points it into the build's work directory,
    removed at the end) or in a temporary directory removed when the process exits; ``release`` deletes
    each module's files as soon as it is done, so it never grows during a build.
    """
    global _initialised_cache
    if _initialised_cache is None:
        if _ctx.runtime is None:
            cache = os.environ.get(KERNEL_CACHE_ENV)
            if not cache:
                cache = tempfile.mkdtemp(prefix="warp_cuda_ir_cache_")
                atexit.register(shutil.rmtree, cache, ignore_errors=True)
            wp.config.kernel_cache_dir = cache
        wp.config.log_level = wp.LOG_WARNING
        wp.config.verbose_warnings = False
        wp.init()
        _initialised_cache = str(wp.config.kernel_cache_dir)
    return _initialised_cache


def init_quietly() -> None:
    """``init`` with Warp's C-level stderr lines silenced (a worker's driver printed them once already)."""
    if _initialised_cache is not None:
        return
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 2)
        init()
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def leave_cache(folder: str | Path) -> None:
    """Point this process's Warp at a private kernel cache (removed at exit) if its cache is inside ``folder``.

    A build initialises Warp with its cache in the build's work folder when it is the first Warp user of the
    process; once the build has removed that folder, later Warp work in the process (a ``validate`` after a
    ``build_folder`` call, a test after another) would otherwise create it again in TMPDIR.
    """
    global _initialised_cache
    if _initialised_cache is None or not Path(_initialised_cache).is_relative_to(Path(folder)):
        return
    from warp._src import build

    cache = tempfile.mkdtemp(prefix="warp_cuda_ir_cache_")
    atexit.register(shutil.rmtree, cache, ignore_errors=True)
    wp.config.kernel_cache_dir = cache
    build.init_kernel_cache(cache)
    _initialised_cache = str(wp.config.kernel_cache_dir)


def options_json(options: dict) -> str:
    """The ``module_options`` column: resolved module options as JSON, keys sorted (enums by name)."""
    plain = {k: v.name if isinstance(v, enum.Enum) else v for k, v in options.items()}
    return json.dumps(plain, sort_keys=True, default=str)


# The file a row's program is saved as. Warp prints the path of a function's file in some emitted comments
# (a generic function's instances: ``// PATH:0``); a row names the bare file, never a directory.
SOURCE_FILE = "kernel.py"


@contextlib.contextmanager
def _source_file(source: str) -> Iterator[None]:
    """Serve ``source`` as ``SOURCE_FILE`` while Warp reads it.

    ``@wp.kernel`` reads a function's text through ``inspect.getsource`` (which reads ``linecache``) when it is
    defined, and a generic function's instances ask ``inspect.getsourcefile`` for its file when code is
    generated, which names a file only while ``linecache`` knows it (else Warp writes ``unknown source file``).
    """
    linecache.cache[SOURCE_FILE] = (len(source), None, source.splitlines(True), SOURCE_FILE)
    try:
        yield
    finally:
        linecache.cache.pop(SOURCE_FILE, None)


def own_function_keys(source: str, keys) -> list[str]:
    """Which of Warp's function-numbering ``keys`` name a ``@wp.func`` the source defines (a function defined in a
    class body has a key naming the class: Mesh.find -> Mesh___find)."""
    names = re.findall(r"@wp\.func\s*\n[ \t]*def\s+(\w+)", source)
    return [k for name in names for k in keys if k == name or k.endswith(f"__{name}")]


def load_sources(
    sources: list[tuple[str, str]], module_name: str, restart_numbering: bool = True
) -> tuple[_ctx.Module, list[dict]]:
    """Execute ``(label, source)`` pairs into one Warp module; return it and each namespace. ``restart_numbering``
    False: the caller has set Warp's function numbering (``written.Zygote``)."""
    init()
    namespaces = []
    for label, source in sources:
        # Warp numbers @wp.func symbols with a process-wide counter per name (falloff_0, falloff_1, ...);
        # restart it for this program's functions so the emitted code does not depend on build order.
        for key in own_function_keys(source, list(_ctx.function_key_counts)) if restart_numbering else ():
            _ctx.function_key_counts.pop(key, None)
        # Struct annotations are resolved through sys.modules[cls.__module__], so the
        # namespace must be a registered module while its source runs.
        pymod = types.ModuleType(module_name)
        sys.modules[module_name] = pymod
        try:
            with _source_file(source):
                exec(compile(source, SOURCE_FILE, "exec"), pymod.__dict__)
        except Exception as exc:  # noqa: BLE001 - re-raised with the row's coordinates
            raise WarpRejected(label, kernel_in(source), f"{type(exc).__name__}: {exc}") from exc
        finally:
            sys.modules.pop(module_name, None)
        namespaces.append(pymod.__dict__)
    module = _ctx.get_module(module_name)
    module.options.update(MODULE_OPTIONS)
    module.mark_modified()
    return module, namespaces


def release(module: _ctx.Module) -> None:
    """Forget a module so a long build does not accumulate kernels, code or cache files."""
    try:
        module.unload()
        # Modules that provide builtins written in Python (warp.math's norm_l1...) keep every module that
        # used them in a dependents set; without this a long build keeps every such module alive.
        module._detach_references()
        # Launching with a struct argument caches the struct's size under the struct type, and the struct
        # refers to its module: without this every executed module with a struct (all its kernels, their
        # syntax trees) stayed alive, about 0.5 MB per row of a verifying build.
        for struct in module.structs.values():
            _wp_types._type_size_cache.pop(struct, None)
    finally:
        _ctx.user_modules.pop(module.name, None)
        shutil.rmtree(Path(wp.config.kernel_cache_dir) / module.get_module_identifier(), ignore_errors=True)


def build_block_dim(target: str, block_dim: int | None, options: dict) -> int:
    """The ``block_dim`` Warp builds a module with for a launch on ``target`` (``WP_TILE_BLOCK_DIM``).

    A CUDA launch builds for the block_dim it launches with (``wp.launch_tiled(..., block_dim=B)``, else the
    module's option, 256 by default); a CPU launch always builds for 1 (Warp runs a block as one thread there).
    """
    if target == "cpu":
        return 1
    return block_dim or options.get("block_dim") or 256


def native_dir() -> str:
    """Warp's header-only native folder (``builtin.h`` and friends) inside the installed warp-lang package."""
    return str(Path(wp.__file__).parent / "native")


def resolved_options(module: _ctx.Module, target: str, block_dim: int | None = None) -> dict:
    """The options Warp generates ``module``'s code for ``target`` with, resolved by Warp itself.

    ``Module.load`` and ``compile_aot_module`` hash the module for the launch's block_dim first, which resolves
    every option left at ``None`` from ``wp.config`` (``default_grid_stride``, ``mode``, the MathDx switches...)
    and each kernel's grid-stride launch; ``_compile`` then adds the ``output_arch`` (None on the CPU). The same
    calls are made here, so a row's code is what a user's load of the module writes, whatever Warp resolves.
    """
    bd = build_block_dim(target, block_dim, module.options)
    module.get_module_hash(bd)
    return module.resolved_options[bd] | {"output_arch": CUDA_ARCH if target == "cuda" else None}


def translation_unit(module: _ctx.Module, target: str, block_dim: int | None) -> tuple[str, dict]:
    """(Warp's translation unit of ``module`` for ``target``, the resolved options it was generated with)."""
    options = resolved_options(module, target, block_dim)
    # Module._compile's own code-generation step, so nothing between the options and the text differs from it
    source = module._run_codegen(options, target == "cpu")[0]
    return _portable(source), options


def emit(
    label: str,
    source: str,
    module_name: str,
    configs: tuple[str, ...] = tuple(UNITS),
    kernel: str | None = None,
    block_dim: int | None = None,
) -> dict[str, Unit]:
    """Generate the units ``configs`` need for one program, isolated in its own module.

    Without ``kernel`` the module's kernels are built together and the last is the row's (a generated program's
    own kernel comes after its siblings); with it, only that kernel (by name; a generic kernel's first overload)
    is built, as ``emit_kernel`` does. ``block_dim`` is the one the kernel is launched with (``build_block_dim``).

    Each target's unit is generated once, as ``Module.load`` (CPU) and ``compile_aot_module`` (CUDA) generate
    it for a user: with the adjoints of every kernel that has one, so ``cuda-forward`` and ``cuda-backward``
    rows of a program share one unit and differ only in the function their ``ir`` holds.
    """
    module, namespaces = load_sources([(label, source)], module_name)
    if kernel is not None:
        try:
            chosen = _named_kernel(namespaces[0], kernel, label)
            return emit_kernel(label, chosen, configs, block_dim=block_dim)
        finally:
            release(module)
    kernel = kernel_in(source)
    units, tus = {}, {}
    try:
        with _source_file(source):
            for config in configs:
                target, ir_suffix, entry_suffix = _unit_spec(config)
                if target not in tus:
                    tus[target] = translation_unit(module, target, block_dim)
                tu, options = tus[target]
                units[config] = Unit(tu, function(tu, kernel + ir_suffix), kernel + entry_suffix, options)
    except Exception as exc:  # noqa: BLE001 - Warp raises many types; all mean "generator bug"
        raise WarpRejected(label, kernel, f"{type(exc).__name__}: {exc}") from exc
    finally:
        release(module)
    return units


def _named_kernel(namespace: dict, name: str, label: str) -> _ctx.Kernel:
    obj = namespace.get(name)
    if not isinstance(obj, _ctx.Kernel):
        raise WarpRejected(label, name, f"no @wp.kernel named {name!r} in the source")
    instances = kernel_instances(obj)
    if not instances:
        raise WarpRejected(label, name, "generic kernel without overloads: no concrete types to emit")
    return instances[0][1]


def kernel_instances(kernel: _ctx.Kernel) -> list[tuple[str, _ctx.Kernel]]:
    """(signature, concrete kernel) pairs to emit: the kernel itself, or a generic kernel's declared overloads.

    A generic kernel has no code until it is given types (``wp.overload`` or a launch); its overloads are sorted
    by signature so the order does not depend on when they were declared.
    """
    if not kernel.is_generic:
        return [("", kernel)]
    return sorted(kernel.overloads.items())


def backward_enabled(kernel: _ctx.Kernel) -> bool:
    """Whether Warp would generate an adjoint: ``enable_backward`` of the kernel, else of its module."""
    return bool((kernel.module.options | kernel.options).get("enable_backward", True))


def emit_kernel(
    label: str,
    kernel: _ctx.Kernel,
    configs: tuple[str, ...] = tuple(UNITS),
    *,
    block_dim: int | None = None,
) -> dict[str, Unit]:
    """Generate ``configs``' units for one concrete kernel object, alone in its translation unit.

    The kernel may live in any module (an imported one included): only it, the functions and structs it
    reaches, and its module's options (``block_dim`` for tile kernels unless given) go into the unit, hashed as
    a module of its own would be, with its options resolved as ``resolved_options`` does. Names are emitted
    without hash suffixes. A ``cuda-backward`` unit is refused when ``enable_backward`` is off for the kernel
    (``backward_enabled``).
    """
    init()
    if kernel.is_generic:
        raise WarpRejected(label, kernel.key, "generic kernel: pass one of kernel_instances(kernel)")
    if any(UNITS[u].pass_ == "backward" for u in configs) and not backward_enabled(kernel):
        raise WarpRejected(label, kernel.key, "enable_backward=False: Warp emits no backward kernel")
    module = kernel.module
    saved = module.options.get("strip_hash")
    module.options["strip_hash"] = True  # emitted names: KEY_cuda_kernel_forward, no content hash
    units, tus = {}, {}
    try:
        for config in configs:
            target, ir_suffix, entry_suffix = _unit_spec(config)
            if target not in tus:
                bd = build_block_dim(target, block_dim, module.options)
                options = module.resolve_options(wp.config, block_dim=bd) | {
                    "output_arch": CUDA_ARCH if target == "cuda" else None
                }
                hasher = _ctx.ModuleHasher([kernel], options)
                builder = _ctx.ModuleBuilder(module, options, hasher=hasher, target=target)
                tus[target] = (_portable(builder.codegen(target)), options)
            tu, options = tus[target]
            name = kernel.get_mangled_name()
            units[config] = Unit(tu, function(tu, name + ir_suffix), name + entry_suffix, options)
    except Exception as exc:  # noqa: BLE001 - Warp raises many types; the caller counts them by reason
        raise WarpRejected(label, kernel.key, f"{type(exc).__name__}: {exc}") from exc
    finally:
        module.options["strip_hash"] = saved  # the module is the caller's: leave its options as they were
        kernel.hash = None  # forget the hash-free name, so the module's own builds name it as usual
    return units


def cuda_available() -> bool:
    init()
    return wp.is_cuda_available()
