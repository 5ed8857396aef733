"""Warp's bundled compilers: their versions (the rows' ``toolchain``), one translation unit compiled with NVRTC to
sm_90 PTX (no GPU needed) or with Clang to a CPU object, in a per-process scratch folder inside the build's kernel
cache with precompiled headers, and a module compiled and loaded for the CPU."""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from pathlib import Path

import warp as wp
from warp._src import context as _ctx

from builder.warp_backend.codegen import CUDA_ARCH, init

# Warp's Clang builds CPU modules at -O2 by default. The rows' CPU evidence (the unit compiles; what it computes, as
# rounded output checksums) came out the same at -O0 on 1,024 generated programs (every validity flag and checksum
# equal), and -O0 builds them 2.6 times faster, where the CPU build was the largest part of a build's time. A row's
# text is what Warp emits and does not depend on it; the evaluator compiles predictions at Warp's default.
CPU_OPTIMIZATION_LEVEL = 0


def scratch_dir() -> Path:
    """This process's directory for compiler files, inside the kernel cache (so it goes when the cache goes).

    It lives as long as the process, so Warp's precompiled CUDA header is built once per process rather than
    once per shard or batch; forked workers get their own, because the header file is not safe to share.
    """
    path = Path(init()) / f"nvrtc-{os.getpid()}"
    # parents too: a folder build in this process removes the build's kernel cache when it ends
    path.mkdir(parents=True, exist_ok=True)
    return path


@contextlib.contextmanager
def _files(tu: str, name: str, suffix: str, out_suffix: str, pch: str) -> Iterator[tuple[Path, Path, Path]]:
    """(the source written to the scratch folder, the compiler's output path, the precompiled-header folder); the
    source and the output are removed afterwards, the header folder kept for the process's next compile."""
    workdir = scratch_dir()
    src = workdir / f"{name}{suffix}"
    src.write_text(tu)
    out = src.with_suffix(out_suffix)
    headers = workdir / pch
    headers.mkdir(exist_ok=True)
    try:
        yield src, out, headers
    finally:
        src.unlink(missing_ok=True)
        out.unlink(missing_ok=True)


def nvrtc_compile(tu: str, name: str) -> str:
    """Compile CUDA source to sm_90 PTX with Warp's bundled NVRTC (no GPU needed); return the PTX."""
    from warp._src import build

    # the precompiled header cuts Warp's header parse from ~0.35 s to ~0.08 s per compile
    with _files(tu, name, ".cu", ".ptx", "pch") as (cu, ptx, pch):
        build.build_cuda(str(cu), CUDA_ARCH, str(ptx), pch_dir=str(pch), use_precompiled_headers=True)
        return ptx.read_text()


def cpu_compile(tu: str, name: str) -> None:
    """Compile CPU C++ to an object file with Warp's bundled Clang at ``CPU_OPTIMIZATION_LEVEL`` (the object is
    discarded); raise on failure.

    The block size of tile code is the ``WP_TILE_BLOCK_DIM`` the translation unit defines; the flag only
    matters for sources that do not define it.
    """
    from warp._src import build

    with _files(tu, name, ".cpp", ".o", "pch_cpu") as (cpp, obj, pch), kept_headers(pch):
        build.build_cpu(
            str(obj),
            str(cpp),
            mode="release",
            optimization_level=CPU_OPTIMIZATION_LEVEL,
            use_precompiled_headers=True,
            pch_dir=str(pch),
        )


@contextlib.contextmanager
def kept_headers(pch_dir: str | Path) -> Iterator[None]:
    """Keep the precompiled headers of ``pch_dir`` through a compile that fails.

    After any failed compile Warp's Clang deletes its precompiled header as stale, and the next compile builds it
    again (about 2.5 s against 0.1 s for a small unit): a unit that does not compile (a row left out) made every
    later one pay that. A header of this process's own Warp is never stale, so a hard link keeps it and puts it
    back."""
    kept = []
    for header in Path(pch_dir).glob("*.pch"):
        link = header.with_name(header.name + ".kept")
        try:
            if not link.exists():
                os.link(header, link)
            kept.append((header, link))
        except OSError:  # a file system without hard links: the header is built again, as Warp would
            pass
    try:
        yield
    finally:
        for header, link in kept:
            if not header.exists():
                with contextlib.suppress(OSError):
                    os.link(link, header)


def toolchain() -> dict[str, str | None]:
    """Versions of what produced and compiled the code: warp-lang (and the git commit its build records, when
    it records one), Warp's bundled NVRTC and the CUDA architecture it compiles for, Warp's CPU compiler."""
    init()
    rt = _ctx.runtime
    nvrtc = getattr(rt, "toolkit_version", None)
    return {
        "warp": wp.__version__,
        "warp_git_commit": getattr(wp.config, "_git_commit_hash", None),
        "nvrtc": f"{nvrtc[0]}.{nvrtc[1]}" if nvrtc else None,
        "cuda_arch": f"sm_{CUDA_ARCH}",
        "cpu_compiler": f"warp-clang {rt.get_warp_clang_version()} (LLVM {rt.get_llvm_version()})",
    }


def toolchain_json(target: str) -> str:
    """The ``toolchain`` column of a ``target`` row: what ``toolchain`` reports for that target, as JSON."""
    tc = toolchain()
    drop = ("cpu_compiler",) if target == "cuda" else ("nvrtc", "cuda_arch")
    return json.dumps({k: v for k, v in tc.items() if k not in drop}, sort_keys=True)


def load_cpu(module: _ctx.Module) -> None:
    """Compile (with adjoints, at ``CPU_OPTIMIZATION_LEVEL``) and load a module for the CPU device."""
    module.options["enable_backward"] = True
    module.options["optimization_level"] = CPU_OPTIMIZATION_LEVEL
    module.mark_modified()
    # Warp runs CPU launches (tiled ones included) with one thread per block: a module loaded for the default
    # block_dim would run its tile code for 256 lanes on one thread and touch one element in 256
    module.load("cpu", block_dim=1)
