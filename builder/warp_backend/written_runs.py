"""Running many written kernels from one debug build: the execution evidence of a ``derived`` shard's variants.

``written.execute_fresh`` runs one variant: its source loaded as a Warp module, built by Warp in debug mode and
launched, in a child forked for it. Most of that is the build's fixed cost (the compiler's start, the precompiled
header), not the kernel's code, and a shard holds about a hundred variants. ``execute_many`` therefore loads a
batch of variants into one Warp module, each with its own top-level names renamed apart (``helper`` ->
``helper__r3``: the variants of one kernel define the same names, and Warp keys a module's kernels and functions
by name), builds it once and launches each kernel in a grandchild forked for it, so a failed bounds check ends
that grandchild only. A renamed copy is the variant's code under other names: the same statements, argument
types and inputs (built from the row's argument types and the trial seeds), so the same evidence.

What could make a batch-mate's evidence depend on another variant runs alone, with ``execute_fresh``: a source
that sets module options or Warp's config (it would reach the whole module), one whose renaming could not be
made consistent (a parameter or keyword named like a top-level definition), one whose kernel is not a top-level
definition or is declared with a module of its own (``module="unique"``: Warp builds it apart from the batch),
and every variant of a batch that does not load or build (one variant's failure would otherwise be everyone's).
"""

from __future__ import annotations

import ast
import contextlib
import faulthandler
import multiprocessing as mp
import os
import re
import signal
import uuid
from dataclasses import dataclass

from builder.derive.edits import Edit, Source
from builder.warp_backend import codegen, compilers
from builder.warp_backend.written import Execution, assess, execute_fresh

BATCH = 32  # variants a debug build holds: its cost grows with the code, the fixed cost is paid once
# A launch's time: two trials of at most 81 threads end in well under a second (in ten sampled shards, 2,915
# rows, no launch that ended took over 0.5 s); a kernel still running after this loops on what inputs built from
# its types hold (a parent index that forms a cycle), and it was 120 s, three of which made a mujoco-warp shard 6 min
# longer (docs/derived.md, "Size and cost").
RUN_TIMEOUT = 10.0
# a source that touches these reaches every kernel of the module it is loaded into
_MODULE_WIDE = re.compile(r"\bset_module_options\b|\bwp\.config\.")


@dataclass(frozen=True)
class RunRequest:
    """One written kernel to run: its source, name, argument types as its row spells them, whether its adjoint
    runs, and the trials (``seed``, ``launch``)."""

    source: str
    kernel_name: str
    arg_types: tuple[str, ...]
    backward: bool
    trials: tuple


def rename_apart(source: str, suffix: str) -> tuple[str, dict[str, str]] | None:
    """``source`` with each top-level ``def``/``class`` name ``N`` (and every use of it) written ``N + suffix``,
    and the renaming; None when it cannot be made consistent (a parameter or keyword spelled as ``N``, a
    ``global`` statement, or text that does not parse)."""
    try:
        src = Source(source)
    except SyntaxError:
        return None
    top = [n for n in src.tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))]
    own = {n.name for n in top}
    for node in ast.walk(src.tree):
        name = getattr(node, "arg", None) if isinstance(node, (ast.arg, ast.keyword)) else None
        if name in own or isinstance(node, (ast.Global, ast.Nonlocal)):
            return None
    edits = [Edit(*src.span(n), n.id + suffix) for n in ast.walk(src.tree) if isinstance(n, ast.Name) and n.id in own]
    for node in top:
        m = re.compile(rf"(?:def|class)\s+({re.escape(node.name)})\b").search(src.lines[node.lineno - 1])
        if m is None:
            return None
        start = src.offset(node.lineno, 0) + m.start(1)
        edits.append(Edit(start, start + len(node.name), node.name + suffix))
    return src.apply(edits), {name: name + suffix for name in own}


def _renamed_types(arg_types, renaming: dict[str, str]) -> list[str]:
    """The row's argument types with a struct's module path left out and its name renamed as its source was."""
    from builder.warp_backend.splice_run import unqualified

    return [re.sub(r"\w+", lambda m: renaming.get(m.group(0), m.group(0)), unqualified(t)) for t in arg_types]


def execute_many(
    requests: list[RunRequest], pch_dir: str | None, batch: int = BATCH, run_timeout: float = RUN_TIMEOUT
) -> list[Execution]:
    """Each request's ``Execution``, as ``written.execute_fresh`` gives it (see the module docstring)."""
    codegen.init()
    out: list[Execution | None] = [None] * len(requests)
    renamed = {}
    for i, r in enumerate(requests):
        if not _MODULE_WIDE.search(r.source):
            renamed[i] = rename_apart(r.source, f"__r{i}")
    # a kernel that is not a top-level definition (made by a factory, assigned) has no renamed name to look up
    together = [i for i, r in enumerate(requests) if renamed.get(i) and r.kernel_name in renamed[i][1]]
    for k in range(0, len(together), batch):
        chunk = together[k : k + batch]
        for i, run in _run_batch([(i, requests[i], *renamed[i]) for i in chunk], pch_dir, run_timeout).items():
            out[i] = run
    for i, r in enumerate(requests):
        if out[i] is None:  # alone: not batchable, or its batch did not load or build
            out[i] = execute_fresh(
                r.source, r.kernel_name, list(r.arg_types), r.backward, list(r.trials), pch_dir, run_timeout
            )
    return out


def _run_batch(items: list[tuple], pch_dir: str | None, run_timeout: float) -> dict[int, Execution]:
    """The runs a batch child reports; an item it did not report (the batch did not load or build, or the child
    died) is missing and runs alone."""
    ctx = mp.get_context("fork")
    recv, send = ctx.Pipe(duplex=False)
    child = ctx.Process(target=_serve, args=(send, items, pch_dir, run_timeout), daemon=True)
    child.start()
    send.close()
    got: dict[int, Execution] = {}
    try:
        # the build comes first (seconds); then each launch has its own time, enforced by the child
        while recv.poll(max(300.0, run_timeout + 30)):
            try:
                kind, value = recv.recv()
            except EOFError:
                break
            if kind != "run":
                break
            got[value[0]] = value[1]
    finally:
        recv.close()
        if child.is_alive():
            child.kill()
        child.join()
    return got


def _serve(conn, items: list[tuple], pch_dir: str | None, run_timeout: float) -> None:
    """The batch child: load every renamed source into one module, resolve each kernel and what cannot run
    (reported at once), build the module once in debug mode, then launch each kernel in a grandchild."""
    import warp as wp

    from builder.errors import NotEvaluable
    from builder.warp_backend import shipped_inputs, splice_run

    faulthandler.disable()  # a failed bounds check is the evidence of the grandchild it ends, not a crash
    try:
        if pch_dir:
            splice_run.share_pch_dir(pch_dir)
        wp.config.cache_kernels = False
        module, namespaces = codegen.load_sources(
            [(f"run {i}", text) for i, _, text, _ in items], f"wcir_runs_{uuid.uuid4().hex[:12]}"
        )
        module.options |= {"enable_backward": any(r.backward for _, r, _, _ in items), "mode": "debug"}
        module.options["strip_hash"] = False  # a generic kernel's instances keep their hashed names apart
        module.mark_modified()
        kernels = []
        for (i, r, _, renaming), ns in zip(items, namespaces):
            try:
                kernel = splice_run.real_kernel(ns, renaming[r.kernel_name], _renamed_types(r.arg_types, renaming))
                if kernel.module is not module:
                    continue  # declared with a module of its own (module="unique"): not in this build, runs alone
                shipped_inputs.check(kernel)
                kernels.append((i, r, kernel))
            except NotEvaluable as exc:
                conn.send(("run", (i, Execution(None, reason=f"inputs: {exc}"))))
            except Exception as exc:  # noqa: BLE001 - as execute_fresh: a kernel it cannot find did not run
                conn.send(("run", (i, Execution(False, reason=f"{type(exc).__name__}: {str(exc)[:200]}"))))
        if kernels:
            with compilers.kept_headers(pch_dir) if pch_dir else contextlib.nullcontext():
                built = module.load("cpu", codegen.build_block_dim("cpu", None, module.options))
            for i, r, kernel in kernels:
                hooks = built.get_kernel_hooks(kernel)
                if not hooks.forward or (r.backward and not hooks.backward):
                    why = f"RuntimeError: entry point of {kernel.key!r} not found after loading: unresolved symbols"
                    conn.send(("run", (i, Execution(False, reason=why))))
                else:
                    conn.send(("run", (i, _launch(kernel, r, run_timeout))))
        conn.send(("done", None))
    except BaseException as exc:  # noqa: BLE001 - the batch did not load or build: its unreported items run alone
        conn.send(("failed", f"{type(exc).__name__}: {str(exc)[:200]}"))
    finally:
        conn.close()


def _launch(kernel, r: RunRequest, timeout: float) -> Execution:
    """Launch one built kernel on its trials in a grandchild forked for it (``os.fork``: the batch child is a
    daemon, which ``multiprocessing`` does not let have children)."""
    recv, send = mp.Pipe(duplex=False)
    pid = os.fork()
    if pid == 0:  # the grandchild
        recv.close()
        try:
            _trials(send, kernel, r)
        finally:
            os._exit(0)
    send.close()
    status = None
    try:
        if not recv.poll(timeout):
            return Execution(False, reason=f"TimeoutError: ran over {timeout:.0f} s")
        try:
            return recv.recv()
        except EOFError:
            _, status = os.waitpid(pid, 0)
            code = os.waitstatus_to_exitcode(status)
            return Execution(False, reason=f"ChildProcessError: exit code {code} (a failed bounds check)")
    finally:
        recv.close()
        if status is None:
            os.kill(pid, signal.SIGKILL)  # done or over its time: nothing of it is wanted
            os.waitpid(pid, 0)


def _trials(conn, kernel, r: RunRequest) -> None:
    from builder.warp_backend import shipped_inputs, trial_run

    try:
        arrays = trial_run.run(kernel, shipped_inputs.prepare(kernel, "cpu"), list(r.trials), "cpu", r.backward)
        conn.send(assess(arrays, len(r.trials)))
    except BaseException as exc:  # noqa: BLE001 - any failure to run is the evidence: not executed
        conn.send(Execution(False, reason=f"{type(exc).__name__}: {str(exc)[:200]}"))
    finally:
        conn.close()
