"""The only module that touches Warp's private code-generation API.

Everything Warp-internal the project relies on (``ModuleBuilder``, module
options, the user-module registry, ``Module._compile`` through
``compile_aot_module``) is reached from here, so a Warp upgrade touches this
file alone. Kernels are built from source strings in-process: the source is
registered with ``linecache`` (which is what ``inspect.getsource`` reads, so
``@wp.kernel``/``@wp.func`` work unchanged) and executed into a namespace
whose ``__name__`` is a private Warp module.
"""

from __future__ import annotations

import atexit
import linecache
import os
import re
import shutil
import sys
import tempfile
import types
from dataclasses import dataclass
from pathlib import Path

import warp as wp
from warp._src import context as _ctx
from warp._src import types as _wp_types

from builder.errors import WarpRejected
from builder.schema import TARGETS

# strip_hash makes emitted names predictable (NAME_cuda_kernel_forward);
# a generic CPU target makes CPU results identical across host CPUs.
MODULE_OPTIONS = {"strip_hash": True, "cpu_compiler_flags": "", "enable_backward": True}
CUDA_ARCH = 90


@dataclass(frozen=True)
class Unit:
    """What Warp's code generator produced for one kernel and one config."""

    tu: str  # the full translation unit of the kernel's module
    ir: str  # the config's function: __global__ forward/backward kernel, or the CPU forward kernel
    entry: str  # symbol to launch: the __global__ kernel, or the extern "C" CPU wrapper


def _unit_spec(config: str) -> tuple[str, bool, str, str]:
    """(target, with adjoints, IR symbol suffix, entry symbol suffix) of a generated config."""
    target, pass_, suffix = TARGETS[config]
    return target, pass_ == "backward", suffix, suffix if target == "cuda" else "_cpu_forward"


_initialised_cache: str | None = None


KERNEL_CACHE_ENV = "WARP_CUDA_IR_KERNEL_CACHE"  # a build's own directory, shared by its worker processes


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


def toolchain() -> dict[str, str]:
    init()
    nvrtc = ""
    try:
        v = _ctx.runtime.toolkit_version
        nvrtc = f"{v[0]}.{v[1]}" if v else ""
    except Exception:  # noqa: BLE001 - older runtimes lack the attribute; the field is informational
        nvrtc = ""
    return {"warp": wp.__version__, "nvrtc": nvrtc}


def load_sources(sources: list[tuple[str, str]], module_name: str) -> tuple[_ctx.Module, list[dict]]:
    """Execute ``(label, source)`` pairs into one Warp module; return it and each namespace."""
    init()
    namespaces = []
    for label, source in sources:
        # The file name is printed in the emitted C++ comments, so it must not depend on the row or module.
        filename = "kernel.py"
        # Warp numbers @wp.func symbols with a process-wide counter per name (falloff_0, falloff_1, ...);
        # restart it for this program's functions so the emitted code does not depend on build order.
        for name in re.findall(r"@wp\.func\s*\ndef\s+(\w+)", source):
            _ctx.function_key_counts.pop(name, None)
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        # Struct annotations are resolved through sys.modules[cls.__module__], so the
        # namespace must be a registered module while its source runs.
        pymod = types.ModuleType(module_name)
        sys.modules[module_name] = pymod
        try:
            exec(compile(source, filename, "exec"), pymod.__dict__)
        except Exception as exc:  # noqa: BLE001 - re-raised with the row's coordinates
            raise WarpRejected(label, _kernel_in(source), f"{type(exc).__name__}: {exc}") from exc
        finally:
            linecache.cache.pop(filename, None)
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


def _builder(module: _ctx.Module, backward: bool) -> _ctx.ModuleBuilder:
    options = dict(module.options)
    options["enable_backward"] = backward
    return _ctx.ModuleBuilder(module, options, target="cuda")


def emit(label: str, source: str, module_name: str, configs: tuple[str, ...] = tuple(TARGETS)) -> dict[str, Unit]:
    """Generate the units ``configs`` need for one program, isolated in its own module.

    Each Warp build (with or without adjoints) is done at most once and shared by the targets that need it.
    Building with adjoints marks the module's functions as used by a backward kernel, which changes what a
    forward-only build emits for them; so every forward-only unit is generated first, and each unit is the
    same whether it is emitted alone or with others.
    """
    module, _ = load_sources([(label, source)], module_name)
    kernel = _kernel_in(source)
    builders: dict[bool, _ctx.ModuleBuilder] = {}
    units = {}
    try:
        for config in sorted(configs, key=lambda c: _unit_spec(c)[1]):
            target, backward, ir_suffix, entry_suffix = _unit_spec(config)
            if backward not in builders:
                builders[backward] = _builder(module, backward)
            tu = _portable(builders[backward].codegen(target))
            units[config] = Unit(tu, function(tu, kernel + ir_suffix), kernel + entry_suffix)
    except Exception as exc:  # noqa: BLE001 - Warp raises many types; all mean "generator bug"
        raise WarpRejected(label, kernel, f"{type(exc).__name__}: {exc}") from exc
    finally:
        release(module)
    return {c: units[c] for c in configs}


def function(tu: str, symbol: str) -> str:
    """The full definition of ``symbol`` in a translation unit (from its declaration to its closing brace)."""
    lines = tu.splitlines()
    pat = re.compile(rf"\b{re.escape(symbol)}\s*\(")
    for n, line in enumerate(lines):
        if pat.search(line) and not line.rstrip().endswith(";") and not line.startswith((" ", "\t")):
            start = n - 1 if n > 0 and lines[n - 1].startswith("template") else n
            end = next(k for k in range(n, len(lines)) if lines[k] == "}")
            return "\n".join(lines[start : end + 1]) + "\n"
    raise KeyError(f"{symbol} not found in the generated translation unit")


_REFERENCE = """import warp as wp


@wp.kernel
def __wcir_reference(a: wp.array(dtype=float)):
    a[wp.tid()] = 1.0
"""
_headers: dict[str, str] = {}


_WARP_DIR = str(Path(wp.__file__).resolve().parent)


def _portable(tu: str) -> str:
    """Warp stamps helper functions with their absolute source path; keep only the package-relative part."""
    return tu.replace(_WARP_DIR, "warp")


def split_tu(tu: str, target: str) -> tuple[str, str]:
    """(prologue shared by every module, this module's own code).

    The prologue is the longest common line prefix with a reference module's
    translation unit, so it tracks whatever Warp's template holds.
    """
    if target not in _headers:
        refs = []
        for name in ("__wcir_ref_a", "__wcir_ref_b"):
            module, _ = load_sources([("reference", _REFERENCE.replace("__wcir_reference", name))], name)
            try:
                refs.append(_builder(module, backward=True).codegen(target).splitlines(True))
            finally:
                release(module)
        n = _common_prefix(*refs)
        while n and not refs[0][n - 1].strip():
            n -= 1
        _headers[target] = "".join(refs[0][:n])
    head = _headers[target]
    if not tu.startswith(head):
        raise ValueError(f"translation unit does not start with Warp's {target} prologue")
    return head, tu[len(head) :]


def _common_prefix(a: list[str], b: list[str]) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


def scratch_dir() -> Path:
    """This process's directory for compiler files, inside the kernel cache (so it goes when the cache goes).

    It lives as long as the process, so Warp's precompiled CUDA header is built once per process rather than
    once per shard or batch; forked workers get their own, because the header file is not safe to share.
    """
    path = Path(init()) / f"nvrtc-{os.getpid()}"
    path.mkdir(exist_ok=True)
    return path


def nvrtc_compile(tu: str, name: str) -> str:
    """Compile CUDA source to sm_90 PTX with Warp's bundled NVRTC (no GPU needed); return the PTX."""
    from warp._src import build

    workdir = scratch_dir()
    cu = workdir / f"{name}.cu"
    cu.write_text(tu)
    ptx = cu.with_suffix(".ptx")
    try:
        # the precompiled header cuts Warp's header parse from ~0.35 s to ~0.08 s per compile
        pch = workdir / "pch"
        pch.mkdir(exist_ok=True)
        build.build_cuda(str(cu), CUDA_ARCH, str(ptx), pch_dir=str(pch), use_precompiled_headers=True)
        return ptx.read_text()
    finally:
        cu.unlink(missing_ok=True)
        ptx.unlink(missing_ok=True)


def load_cpu(module: _ctx.Module) -> None:
    """Compile (with adjoints) and load a module for the CPU device."""
    module.options["enable_backward"] = True
    module.mark_modified()
    # Warp runs CPU launches (tiled ones included) with one thread per block: a module loaded for the default
    # block_dim would run its tile code for 256 lanes on one thread and touch one element in 256
    module.load("cpu", block_dim=1)


def cuda_available() -> bool:
    init()
    return wp.is_cuda_available()


def _kernel_in(source: str) -> str:
    m = re.search(r"@wp\.kernel(?:\([^)]*\))?\s*\ndef\s+(\w+)", source)
    return m.group(1) if m else "?"
