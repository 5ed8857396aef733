"""Compile and run a translation unit that is not the one Warp would generate: a model's predicted function
spliced into a row's module; or a model's predicted Warp Python, which Warp itself loads and generates code for
(``python_run``).

Warp builds a module from the C++ or CUDA that ``Module._run_codegen`` returns; this module loads the row's
Python program as usual (so Warp knows the kernel's arguments, launch bounds and metadata) and makes that
module's code generation return the given translation unit instead. Everything else (argument marshalling,
launching, the tape) is Warp's own, so a prediction runs exactly as the reference does.
"""

from __future__ import annotations

import re
import threading
import types
import uuid
from pathlib import Path

import warp as wp
from warp._src import context as _ctx

from builder.errors import WarpRejected
from builder.grammar.program import Program
from builder.warp_backend import codegen, compilers, shipped_inputs, trial_run


def _load(source: str, tu: str | None, backward: bool, mode: str = "") -> tuple[_ctx.Module, dict]:
    """The Warp module of ``source``, built from ``tu`` rather than from Warp's own code generation (from Warp's
    own when ``tu`` is None); ``mode`` "debug" compiles with Warp's bounds checks."""
    # Never reuse a binary: a prediction and its reference share the Python source, hence the cache key.
    wp.config.cache_kernels = False
    module, (ns,) = codegen.load_sources([("evaluate", source)], f"wcir_eval_{uuid.uuid4().hex[:12]}")
    _configure(module, backward, mode, tu is None)
    if tu is not None:
        generate = module._run_codegen

        def spliced(options: dict, is_cpu: bool):
            _, ext, meta, ltoirs, fatbins = generate(options, is_cpu)
            return tu, ext, meta, ltoirs, fatbins

        module._run_codegen = spliced  # an instance attribute: this module only
    return module, ns


def _configure(module: _ctx.Module, backward: bool, mode: str, own_build: bool) -> None:
    module.options["enable_backward"] = backward
    if mode:
        module.options["mode"] = mode
    if own_build:  # Warp's own build of every overload: hashed names keep a generic kernel's instances apart
        module.options["strip_hash"] = False
    module.mark_modified()


def _own_module(module: _ctx.Module, kernel, backward: bool, mode: str) -> _ctx.Module:
    """The module Warp builds and launches ``kernel`` from: ``module``, or, for a kernel declared with a module of
    its own (``@wp.kernel(module="unique")``), that one, given the options of Warp's own build (``module``'s build
    never holds such a kernel)."""
    if kernel.module is module:
        return module
    _configure(kernel.module, backward, mode, True)
    return kernel.module


def _loaded(module: _ctx.Module, kernel, device: str, backward: bool) -> None:
    # build what the launch will use: a CPU launch loads the module for block_dim 1, and a build for the module's
    # default (256) here would be compiled, then never run, doubling a CPU row's compile
    block_dim = codegen.build_block_dim("cpu" if device == "cpu" else "cuda", None, module.options)
    hooks = module.load(device, block_dim).get_kernel_hooks(kernel)
    # an object that loads but left symbols unresolved (an undefined function) has no entry point
    if not hooks.forward or (backward and not hooks.backward):
        raise RuntimeError(f"entry point of {kernel.key!r} not found after loading: unresolved symbols")


def compile_and_run(program: Program, tu: str, device: str, backward: bool, trials: list, on_compiled=None) -> dict:
    """Compile ``tu`` as the program's module for ``device`` ("cpu" or "cuda:0"), then launch the kernel (and
    its adjoint if ``backward``) on each trial's inputs (``trial_run.run``); ``on_compiled`` is called between."""
    module, ns = _load(program.source, tu, backward)
    try:
        kernel = ns[program.kernel_name]
        _loaded(module, kernel, device, backward)
        if on_compiled is not None:
            on_compiled()
        return trial_run.run(kernel, trial_run.generated(program, ns, device), trials, device, backward)
    finally:
        codegen.release(module)


def real_kernel(ns: dict, name: str, arg_types: list[str]):
    """The concrete kernel of a shipped row: ``name``, or its overload for the row's argument types (declared
    here when the source does not declare it: a module may create its overloads at run time). A struct is
    compared by its name: the row spells it with the module its source was emitted as, not the one it runs as."""
    kernel = ns[name]
    want = [unqualified(t) for t in arg_types]
    inst = _instance(kernel, want, unqualified)
    if inst is not None:
        return inst
    if not kernel.is_generic:
        raise RuntimeError(f"kernel {name!r} does not have the argument types {arg_types}")
    return wp.overload(kernel, [_type(t, ns) for t in want])


def _instance(kernel, arg_types: list[str], spell):
    """The declared instance of ``kernel`` whose argument types, as ``type_repr`` spells them passed through
    ``spell``, are ``arg_types``; None when there is none."""
    from warp._src import types as wt

    for _, inst in codegen.kernel_instances(kernel):
        if [spell(wt.type_repr(a.type)) for a in inst.adj.args] == arg_types:
            return inst
    return None


_ARRAY = re.compile(r"array\(ndim=(\d+), dtype=(.+)\)")


def _type(spelling: str, ns: dict):
    """The Warp type ``warp.types.type_repr`` spells as ``spelling`` (a plain array, a scalar, a vector or
    matrix, or a struct of the kernel's source); no expression is evaluated."""
    m = _ARRAY.fullmatch(spelling)
    if m:
        return wp.array(dtype=_type(m.group(2), ns), ndim=int(m.group(1)))
    found = ns.get(spelling, getattr(wp, spelling, None))
    if found is None:
        raise RuntimeError(f"argument type {spelling!r} is not a Warp type this harness can name")
    return found


def real_run(row: dict, tu: str | None, device: str, backward: bool, trials: list, on_compiled=None) -> dict:
    """A shipped kernel (``row``: python_source, kernel_name, arg_types) run on inputs built from its types.

    With ``tu`` None the kernel is Warp's own build in debug mode, whose bounds checks end the process on an
    out-of-range access: the check that generated inputs suit the kernel. Raises ``NotEvaluable`` when an
    argument cannot be built, before compiling.
    """
    module, ns = _load(row["python_source"], tu, backward, "debug" if tu is None else "")
    built = module
    try:
        kernel = real_kernel(ns, row["kernel_name"], row["arg_types"])
        shipped_inputs.check(kernel)
        if tu is None:
            built = _own_module(module, kernel, backward, "debug")
        _loaded(built, kernel, device, backward)
        if on_compiled is not None:
            on_compiled()
        return trial_run.run(kernel, shipped_inputs.prepare(kernel, device), trials, device, backward)
    finally:
        if built is not module:
            codegen.release(built)
        codegen.release(module)


class SignatureMismatch(Exception):
    """A predicted module's kernel has not the row's kernel name, argument names or argument types."""


def predicted_kernel(ns: dict, name: str, arg_names: list[str], arg_types: list[str]):
    """The kernel of a predicted module a row's inputs can be passed to: ``name``, with the row's argument names
    and types (a generic kernel: its overload for them). A struct is compared by its name: the module it is spelled
    with is the one the source was loaded as. Raises ``SignatureMismatch``."""
    from warp._src import types as wt

    kernel = ns.get(name)
    if not isinstance(kernel, _ctx.Kernel):
        raise SignatureMismatch(f"no @wp.kernel named {name!r}")
    names = [a.label for a in kernel.adj.args]
    if names != list(arg_names):
        raise SignatureMismatch(f"argument names {names} are not the row's {list(arg_names)}")
    want = [unqualified(t) for t in arg_types]
    inst = _instance(kernel, want, unqualified)
    if inst is not None:
        return inst
    if not kernel.is_generic:
        found = [unqualified(wt.type_repr(a.type)) for a in kernel.adj.args]
        raise SignatureMismatch(f"argument types {found} are not the row's {want}")
    try:
        return wp.overload(kernel, [_type(t, ns) for t in want])
    except Exception as exc:  # noqa: BLE001 - Warp rejects an overload in many types
        raise SignatureMismatch(f"no overload for the row's argument types {want}: {exc}") from None


def unqualified(spelling: str) -> str:
    """A type's spelling with a struct's module path left out (``pkg.mod.Particle`` -> ``Particle``)."""
    return re.sub(r"\b(?:\w+\.)+(\w+)", r"\1", spelling)


def _declared_types(source: str, name: str) -> list[str]:
    """The argument types of kernel ``name`` of a generated row's own source, as ``type_repr`` spells them (the
    row's ``arg_types`` column spells a generated program's types the grammar's way)."""
    from warp._src import types as wt

    module, ns = _load(source, None, False)
    try:
        return [wt.type_repr(a.type) for a in ns[name].adj.args]
    finally:
        codegen.release(module)


def python_run(job: dict, stage, program: Program | None, trials: list, workdir: str) -> dict | None:
    """A predicted Warp Python module (``job["prediction"]``): Warp loads it and generates its code for the row's
    target (stage ``load``), its kernel must have the row's signature (``signature``), then it is compiled (for a
    compile-only job, Warp's translation unit is compiled and nothing runs) and launched on every trial's inputs,
    built as the reference's are: from the regenerated ``program`` (generated rows) or from the argument types
    (shipped rows). Returns the arrays, or None for a compile-only job."""
    backward, target = job["backward"], job["target"]
    arg_types = job["arg_types"] if program is None else _declared_types(job["python_source"], job["kernel_name"])
    stage.name = "load"
    try:
        module, ns = _load(job["prediction"], None, backward)
    except WarpRejected as exc:  # the error the prediction's own code raised, as a user running it sees it
        raise exc.__cause__ or exc from None
    try:
        tu, _ = codegen.translation_unit(module, target, None)  # Warp's code generation: what "loaded" means
        stage.name = "signature"
        kernel = predicted_kernel(ns, job["kernel_name"], job["arg_names"], arg_types)
        stage.name = "compile"
        if job["stage"] == "compile":
            if target == "cpu":
                cpu_check(tu, workdir)
            else:
                nvrtc_check(tu)
            stage.compiled()
            return None
        device = device_name(target)
        _loaded(module, kernel, device, backward)
        stage.compiled()
        if program is not None:
            return trial_run.run(kernel, trial_run.generated(program, ns, device), trials, device, backward)
        shipped_inputs.check(kernel)
        return trial_run.run(kernel, shipped_inputs.prepare(kernel, device), trials, device, backward)
    finally:
        codegen.release(module)


def cpu_check(tu: str, workdir: str) -> None:
    """Compile a CPU translation unit with Warp's CPU compiler into ``workdir``, without loading it (raises on
    error); the precompiled header is the one ``share_pch_dir`` named."""
    from warp._src import build

    cpp = Path(workdir) / f"eval_{uuid.uuid4().hex[:12]}.cpp"
    cpp.write_text(tu)
    pch = _ctx.runtime.get_clang_pch_dir()
    build.build_cpu(str(cpp.with_suffix(".o")), str(cpp), use_precompiled_headers=True, pch_dir=pch)


def nvrtc_check(tu: str) -> None:
    """Compile a CUDA translation unit with NVRTC (no GPU needed); raises with the compiler's log on error."""
    compilers.nvrtc_compile(tu, f"eval_{uuid.uuid4().hex[:12]}")


def share_pch_dir(path: str) -> None:
    """Use ``path`` for this thread's precompiled headers (Warp makes a private temporary directory per runtime).

    Warp's CPU compiler builds its header's precompiled form once per directory (about 2.5 s) and reuses it
    after; pointing every evaluation child at one directory, filled by the first child, saves that per child.
    """
    codegen.init()
    with _ctx.runtime._pch_dirs_lock:
        _ctx.runtime._pch_dirs[threading.get_ident()] = types.SimpleNamespace(name=path)


def device_name(target: str) -> str:
    return "cpu" if target == "cpu" else "cuda:0"
