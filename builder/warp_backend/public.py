"""What Warp's public pipeline writes for a program: the outside reference every row is checked against.

A row claims its ``module_source`` is the translation unit Warp writes for a user who saves the row's
``python_source`` as ``kernel.py`` and loads it. This module makes exactly that happen, with nothing of the
builder's codegen adapter involved: each program is written to its own folder as ``kernel.py``, imported in a
process that has imported Warp and nothing else (a fork of a fresh driver process, so ``@wp.func`` numbering
is a fresh process's), and handed to ``wp.load_module(module, device="cpu", block_dim=1)`` (the block_dim of
every CPU launch) and ``wp.compile_aot_module(module, arch=90)``; the ``.cpp`` and ``.cu`` files Warp writes
into a private kernel cache are read back. A tile kernel launched with ``block_dim=B`` gets
``wp.set_module_options({"block_dim": B})`` first, which is what its CUDA launch builds with.

Only what cannot be the same on two machines is normalized, and ``normalize`` says what: Warp's content hash
in kernel names (a row's names are hash-free, as with Warp's ``strip_hash`` option), the folder the program was
saved in (a row names the bare ``kernel.py``) and the warp package's install folder (a row names ``warp/``).
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

CUDA_ARCH = 90
SOURCE_FILE = "kernel.py"
MODULE_PREFIX = "module:"


def public_units(
    programs: list[tuple[str, int]], workers: int | None = None, timeout: float = 600
) -> list[dict[str, str]]:
    """For each ``(python_source, cuda_block_dim)``: ``{"cpu": TU, "cuda": TU}`` as Warp's public pipeline
    writes them (normalized), or ``{"error": MESSAGE}`` when Warp refused the program.

    ``python_source`` may also be ``module:DOTTED.NAME:KERNEL``, a kernel of an installed package (a ``real`` or
    ``real`` train row), whose module is imported by name as its users import it, followed by lines of
    ``wp.overload(...)`` declarations to run in that module after the import. ``cuda_block_dim`` is the row's
    ``block_dim`` column (0: a plain ``wp.launch``, Warp's default 256). One
    driver process serves all programs, ``workers`` (default: the CPU count) at a time; it and everything it
    wrote (its temporary files included) are gone when this returns.
    """
    workers = workers or os.cpu_count() or 1
    with tempfile.TemporaryDirectory(prefix="warp_cuda_ir_public_") as work:
        request = Path(work) / "request.json"
        request.write_text(json.dumps([{"source": s, "block_dim": b} for s, b in programs]))
        env = {k: v for k, v in os.environ.items() if not k.startswith("WARP_CUDA_IR_")}
        # Warp's per-thread header folders live in TMPDIR and outlive a child that exits at once: keep them here
        env["TMPDIR"] = str(Path(work) / "tmp")
        os.mkdir(env["TMPDIR"])
        try:
            proc = subprocess.run(
                [sys.executable, "-m", __name__, str(request), work, str(workers)],
                capture_output=True,
                text=True,
                timeout=timeout,
                env=env,
            )
        except subprocess.TimeoutExpired:  # one line naming what to change, not the child's command line
            raise RuntimeError(
                f"Warp's public pipeline did not finish {len(programs)} programs within {timeout:.0f} s (a loaded "
                "machine, or a shipped module slow to import): try a smaller --fidelity-sample"
            ) from None
        results = Path(work) / "results.json"
        if proc.returncode != 0 or not results.exists():
            tail = (proc.stderr or "").strip().splitlines()[-1:] or [f"exit {proc.returncode}"]
            raise RuntimeError(f"Warp's public pipeline driver failed: {tail[0]}")
        return json.loads(results.read_text())


def normalize(text: str, kernel_hashes: set[str], program_dir: str, warp_dir: str) -> str:
    """Warp's text with the per-machine parts made portable (see the module docstring)."""
    for h in sorted(kernel_hashes):
        text = text.replace(f"_{h}", "")
    return text.replace(program_dir.rstrip("/") + "/", "").replace(warp_dir, "warp")


def _one(source: str, block_dim: int, folder: Path, cache: Path) -> dict[str, str]:
    """In a forked child: write, import and build one program the public way; its normalized units."""
    import warp as wp

    folder.mkdir()
    if source.startswith(MODULE_PREFIX):
        head, _, declared = source.partition("\n")  # the row's wp.overload(...) declarations, if any
        name, key = head[len(MODULE_PREFIX) :].split(":")
        module = _shipped_kernel_module(name, key)
        if declared:
            exec(compile(declared, f"<overloads of {key}>", "exec"), vars(sys.modules[name]))
    else:
        (folder / SOURCE_FILE).write_text(source)
        sys.path.insert(0, str(folder))
        module = _program_module(importlib.import_module(Path(SOURCE_FILE).stem))
    if block_dim:
        wp.set_module_options({"block_dim": block_dim}, module)
    warp_dir = str(Path(wp.__file__).resolve().parent)
    units, hashes = {}, set()
    for target in ("cpu", "cuda"):
        before = set(cache.rglob("*"))
        if target == "cpu":
            wp.load_module(module, device="cpu", block_dim=1)
        else:
            wp.compile_aot_module(module, arch=CUDA_ARCH)
        hashes |= _kernel_hashes(module if isinstance(module, wp.Module) else wp.get_module(module.__name__))
        ext = ".cpp" if target == "cpu" else ".cu"
        written = sorted(p for p in set(cache.rglob("*" + ext)) - before)
        if len(written) != 1:
            raise RuntimeError(f"expected one {ext} file from Warp, found {len(written)}")
        units[target] = written[0].read_text()
    return {t: normalize(u, hashes, str(folder), warp_dir) for t, u in units.items()}


def _shipped_kernel_module(name: str, key: str):
    """The Warp module that holds kernel ``key`` of the shipped Python module ``name``, once imported.

    It is usually the Python module's own, but a kernel declared with ``module="unique"`` has one of its own.
    """
    from warp._src import context

    importlib.import_module(name)
    for wm in list(context.user_modules.values()):
        for k in wm.kernels.values():
            if k.key == key and getattr(k.func, "__module__", None) == name:
                return wm
    raise LookupError(f"no kernel {key!r} in {name}")


def _program_module(module):
    """What a user's launch of the program's kernels builds: the Python module's own Warp module, or, when its
    kernels name another (``@wp.kernel(module="name")``, as a written kernel of a ``derived`` row may), that one."""
    import warp as wp
    from warp._src import context

    if wp.get_module(module.__name__).kernels:
        return module
    others = [
        wm
        for wm in list(context.user_modules.values())
        if any(getattr(k.func, "__module__", None) == module.__name__ for k in wm.kernels.values())
    ]
    return others[0] if len(others) == 1 else module


def _kernel_hashes(module) -> set[str]:
    """The 8-hex content hashes Warp appended to this module's kernel names in its last build."""
    out = set()
    for kernel in module.kernels.values():
        for k in [kernel, *kernel.overloads.values()] if kernel.is_generic else [kernel]:
            if k.hash:
                out.add(k.hash.hex()[:8])
    return out


def _drive(request: Path, work: Path, workers: int) -> None:
    """The driver: import Warp, then build each program in a forked child, ``workers`` at a time.

    Each child writes into a kernel cache of its own (so what it reads back is what it built), while the
    precompiled headers, which Warp keeps per thread in a folder the children inherit, are built by the first
    child alone and then shared.
    """
    import warp as wp

    wp.config.kernel_cache_dir = str(work / "kernel-cache")
    wp.config.quiet = True
    wp.init()
    jobs = json.loads(request.read_text())
    running: dict[int, int] = {}  # pid -> job number
    statuses: dict[int, int] = {}

    def reap() -> None:
        pid, status = os.wait()
        statuses[running.pop(pid)] = status

    for n, job in enumerate(jobs):
        while running and (len(running) >= workers or n == 1):  # job 0 builds the headers alone
            reap()
        pid = os.fork()
        if pid == 0:  # the child: a process that has imported Warp and nothing else
            try:
                wp.config.kernel_cache_dir = str(work / f"cache-{n}")
                result = _one(job["source"], job["block_dim"], work / f"program-{n}", work / f"cache-{n}")
            except BaseException as exc:  # noqa: BLE001 - reported as the program's result
                result = {"error": f"{type(exc).__name__}: {exc}"[:500]}
            (work / f"result-{n}.json").write_text(json.dumps(result))
            os._exit(0)
        running[pid] = n
    while running:
        reap()
    results = []
    for n in range(len(jobs)):
        out = work / f"result-{n}.json"
        results.append(json.loads(out.read_text()) if out.exists() else {"error": f"exit status {statuses[n]}"})
    (work / "results.json").write_text(json.dumps(results))


if __name__ == "__main__":
    _drive(Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3]))
