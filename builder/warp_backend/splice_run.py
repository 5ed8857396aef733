"""Compile and run a translation unit that is not the one Warp would generate: a model's predicted function
spliced into a row's module.

Warp builds a module from the C++ or CUDA that ``Module._run_codegen`` returns; this module loads the row's
Python program as usual (so Warp knows the kernel's arguments, launch bounds and metadata) and makes that
module's code generation return the given translation unit instead. Everything else (argument marshalling,
launching, the tape) is Warp's own, so a prediction runs exactly as the reference does.
"""

from __future__ import annotations

import threading
import types
import uuid

import numpy as np
import warp as wp
from warp._src import context as _ctx

from builder.grammar.program import Program
from builder.warp_backend import codegen, execute


def _load(program: Program, tu: str, backward: bool) -> tuple[_ctx.Module, dict]:
    """The program's Warp module, built from ``tu`` rather than from Warp's own code generation."""
    # Never reuse a binary: a prediction and its reference share the Python source, hence the cache key.
    wp.config.cache_kernels = False
    module, (ns,) = codegen.load_sources([("evaluate", program.source)], f"wcir_eval_{uuid.uuid4().hex[:12]}")
    module.options["enable_backward"] = backward
    module.mark_modified()
    generate = module._run_codegen

    def spliced(options: dict, is_cpu: bool):
        _, ext, meta, ltoirs, fatbins = generate(options, is_cpu)
        return tu, ext, meta, ltoirs, fatbins

    module._run_codegen = spliced  # an instance attribute: this module only
    return module, ns


def compile_and_run(
    program: Program, tu: str, device: str, backward: bool, input_seed: int, on_compiled=None
) -> execute.Run:
    """Compile ``tu`` as the program's module for ``device`` ("cpu" or "cuda:0"), then launch the kernel (and
    its adjoint if ``backward``) on the row's seeded inputs; ``on_compiled`` is called between the two."""
    module, ns = _load(program, tu, backward)
    try:
        kernel = ns[program.kernel_name]
        hooks = module.load(device).get_kernel_hooks(kernel)
        # an object that loads but left symbols unresolved (an undefined function) has no entry point
        if not hooks.forward or (backward and not hooks.backward):
            raise RuntimeError(f"entry point of {program.kernel_name!r} not found after loading: unresolved symbols")
        if on_compiled is not None:
            on_compiled()
        return execute.run(program, kernel, ns, np.random.default_rng(input_seed), device, backward)
    finally:
        codegen.release(module)


def nvrtc_check(tu: str) -> None:
    """Compile a CUDA translation unit with NVRTC (no GPU needed); raises with the compiler's log on error."""
    codegen.nvrtc_compile(tu, f"eval_{uuid.uuid4().hex[:12]}")


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


def _load_run(path) -> execute.Run:
    with np.load(path) as f:
        outputs = {k.removeprefix("out/"): f[k] for k in f.files if k.startswith("out/")}
        grads = {k.removeprefix("grad/"): f[k] for k in f.files if k.startswith("grad/")}
    return execute.Run(outputs, grads, {})


def compare_saved(program: Program, predicted, reference) -> tuple[bool, str]:
    """(equal within ``execute.TOLERANCES``, what differed) for two runs saved by the evaluation child."""
    pred, ref = _load_run(predicted), _load_run(reference)
    for kind in ("outputs", "grads"):
        a, b = getattr(pred, kind), getattr(ref, kind)
        if a.keys() != b.keys():
            return False, f"{kind} {sorted(a)} differ from the reference's {sorted(b)}"
        for name in a:
            if a[name].shape != b[name].shape or a[name].dtype != b[name].dtype:
                return False, f"{kind} {name!r}: {a[name].dtype}{a[name].shape} vs {b[name].dtype}{b[name].shape}"
    match, max_abs, max_rel = execute.compare(pred, ref, program)
    return match, "" if match else f"max_abs_err={max_abs:.3g} max_rel_err={max_rel:.3g}"
