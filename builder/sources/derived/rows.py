"""Rows of the ``derived`` config: variants of ``real``'s train kernels (``builder.derive``), each emitted by Warp
for every target and pass and compiled, as ``real``'s rows are.

The source kernels are the ``cpu`` rows of a built folder's ``real`` train split (``--real-data``), one per kernel
(a generic kernel's overloads share one source), in stored order; kernel ``k`` of that list gives rows of index
``k * num_derived + v`` for its variant ``v``, so an index names the same variant in a build of any size. A row
inherits its source row's package, version, licence, copyright and path, and names the row (``derived_from``), the
transformations (``transforms``) and the build's seed. A variant Warp rejects, whose unit does not compile, or
that comes near a kernel of real's validation or test split (``evaluated``) is left out and counted by reason.

Under ``--verify execute`` (the default) each variant whose units compiled also runs on the CPU
(``written.execute_fresh``) on two trials of inputs built from its argument types, seeded by its label; its rows
carry that run's evidence, and ``verify`` says the level a row reached: ``execute`` only where the run passed
every check (ran, finite and changed outputs, finite gradients), ``compile`` otherwise. A variant that cannot run
(an argument of a type inputs cannot be built for, a failed bounds check) keeps its rows: compiling is the
evidence ``real``'s own rows carry.
"""

from __future__ import annotations

import os
import tempfile
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from itertools import groupby
from pathlib import Path
from typing import NamedTuple

from builder import GENERATOR_VERSION
from builder.build_options import BuildOptions
from builder.configs import UNITS
from builder.derive import variants
from builder.errors import ConfigError, WarpRejected
from builder.rng import stable_int
from builder.schema import features
from builder.shipped.launches import launch_ndim, trial_size
from builder.shipped.overlap import builtins, normalized_sha256
from builder.sources.columns import NOT_COMPILED, source_columns, unit_columns

SOURCE_COLUMNS = (
    "id",
    "kernel_name",
    "python_source",
    "category",
    "source_path",
    "package",
    "package_version",
    "license",
    "copyright",
    "qualified_name",
)
# what a repair-real row carries over from the real row it broke: the written kernel's signature and compile evidence
EVIDENCE_COLUMNS = ("arg_names", "arg_types", "verify", "compiled", "compile_target", "toolchain")


@cache
def source_kernels(real_data: str, limit: int = 0) -> tuple[dict, ...]:
    """The train kernels of ``real_data``'s ``real`` config that variants are made of (see the module docstring)."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    files = sorted((Path(real_data) / "real").glob("train-*.parquet"))
    if not real_data or not files:
        raise ConfigError(
            f"derived needs --real-data: a built folder with real's train split ({real_data or 'none given'!r} has"
            " no real/train-*.parquet; build it with warp-cuda-ir build --configs real)"
        )
    table = pa.concat_tables(
        pq.read_table(f, columns=[*SOURCE_COLUMNS, *EVIDENCE_COLUMNS, "target", "split"]) for f in files
    )
    table = table.filter(pc.and_(pc.equal(table["target"], "cpu"), pc.equal(table["split"], "train")))
    seen, out = set(), []
    for row in table.select([*SOURCE_COLUMNS, *EVIDENCE_COLUMNS]).to_pylist():
        key = (row["python_source"], row["kernel_name"])
        if key in seen:
            continue
        seen.add(key)
        out.append(row | {"derived_from": row["id"].rsplit("/", 1)[0]})
        if limit and len(out) == limit:
            break
    return tuple(out)


@cache
def evaluated(real_data: str):
    """real's validation and test kernels in ``real_data`` (held-out packages included), which no variant may come
    near: an ``overlap.Reference`` at the split plan's threshold."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from builder.shipped.overlap import Reference
    from builder.shipped.splits import POLICY

    files = [
        f for split in ("validation", "test") for f in sorted((Path(real_data) / "real").glob(f"{split}-*.parquet"))
    ]
    pairs = []
    if files:
        table = pa.concat_tables(pq.read_table(f, columns=["id", "python_source"]) for f in files)
        pairs = list(zip(table.column("id").to_pylist(), table.column("python_source").to_pylist()))
    return Reference(pairs, POLICY.near_jaccard)


TRIALS = 2  # input trials a variant runs on, each with its own seed (one set of inputs can hide a fault)


class Trial(NamedTuple):
    seed: int
    launch: tuple[int, ...]


def trials(label: str, python_source: str, kernel_name: str) -> list[Trial]:
    """The trials a variant runs on: seeds from its label, every launch dimension ``trial_size`` threads."""
    ndim = launch_ndim(python_source, kernel_name)
    return [Trial(stable_int(label, "inputs", "trial", k), (trial_size(ndim),) * ndim) for k in range(TRIALS)]


@contextmanager
def _pch_dir(evidence_dir: str | None):
    """A folder for Warp's precompiled CPU header, built once (about 5 s) and reused by every debug build of the
    variants' runs: one per process in the build's scratch folder (removed with the build), else a temporary
    one."""
    if evidence_dir:
        path = os.path.join(evidence_dir, f"pch-{os.getpid()}")
        os.makedirs(path, exist_ok=True)
        yield path
    else:
        with tempfile.TemporaryDirectory(prefix="warp_cuda_ir_pch_") as path:
            yield path


def _execution_columns(run) -> dict:
    """A run's evidence columns (all null for no run)."""
    cols = ("executed", "outputs_finite", "outputs_nondegenerate", "grads_finite")
    return {c: getattr(run, c) if run is not None else None for c in cols}


def derived_rows(opts: BuildOptions, start: int, stop: int, left_out: Counter) -> Iterator[dict]:
    """The rows of source kernels ``start..stop-1`` (every unit of every variant), compiled together, and under
    ``--verify execute`` the variants whose units all compiled run together (``written_runs.execute_many``)."""
    from builder.warp_backend import compilers, shipped_compile
    from builder.warp_backend.written_runs import execute_many

    kernels = source_kernels(opts.real_data, opts.derived_kernels)[start:stop]
    verify = opts.verify
    tc = {"warp": compilers.toolchain()["warp"], **{t: compilers.toolchain_json(t) for t in ("cuda", "cpu")}}
    names = list(features(opts.config))
    variant_recs = list(_emitted(opts, kernels, start, tc, left_out))
    if verify == "none":
        for recs, _ in variant_recs:
            yield from ({k: rec[k] for k in names} for rec, _ in recs)
        return
    shipped_compile.compile_jobs([job for recs, _ in variant_recs for _, job in recs])
    runs: dict[int, object] = {}
    if verify == "execute":  # a variant runs once, for all its units, where every unit compiled
        ready = [n for n, (recs, _) in enumerate(variant_recs) if all(job.compiled for _, job in recs)]
        with _pch_dir(opts.evidence_dir) as pch:
            runs = dict(zip(ready, execute_many([variant_recs[n][1] for n in ready], pch)))
    for n, (recs, _) in enumerate(variant_recs):
        kept = []
        for rec, job in recs:
            if not job.compiled:
                left_out[job.error.split(":")[0] + " failed"] += 1
                continue
            kept.append(rec | job.evidence(tc[rec["target"]]))
        if n in runs:
            ran = runs[n]
            level = "execute" if ran.passed else "compile"
            kept = [rec | _execution_columns(ran) | {"verify": level} for rec in kept]
        yield from ({k: rec[k] for k in names} for rec in kept)


def _emitted(opts: BuildOptions, kernels, start: int, tc: dict, left_out: Counter) -> Iterator[tuple]:
    """Each kept variant's (rows with their compile jobs, ``RunRequest``), in order; a variant near a held-out
    kernel or that Warp rejects is counted in ``left_out``."""
    from builder.warp_backend import shipped_compile
    from builder.warp_backend.written import Zygote, leading_imports
    from builder.warp_backend.written_runs import RunRequest

    held = evaluated(opts.real_data)
    # one process imports a source's package for all its variants, and for the next kernels' while their imports
    # are the same (consecutive kernels of one module): it forks a fresh emitter per variant (written.Zygote)
    for imports, group in groupby(enumerate(kernels, start), key=lambda ks: leading_imports(ks[1]["python_source"])):
        with Zygote(imports) as zygote:
            for k, src in group:
                name = src["kernel_name"]
                for v in variants(opts.seed, src["derived_from"], src["python_source"], name, opts.num_derived):
                    index = k * opts.num_derived + v.number
                    label = f"derived/train/{opts.seed}/{index}"
                    if held.nearest(v.python_source) is not None:  # the split plan keeps its source apart
                        left_out["near a real validation or test kernel"] += len(UNITS)
                        continue
                    try:
                        written = zygote.emit(label, v.python_source, f"derived_{index}", name)
                    except WarpRejected as exc:
                        left_out[f"Warp rejects the variant: {exc.message.split(':')[0]}"] += len(UNITS)
                        continue
                    recs = []
                    for unit, emitted in written.units.items():
                        rec = _record(opts, src, v, index, label, unit, emitted, written, tc, opts.verify)
                        recs.append((rec, shipped_compile.CompileJob(UNITS[unit].target, emitted.tu, (emitted.entry,))))
                    backward = any(UNITS[u].pass_ == "backward" for u in written.units)
                    run = RunRequest(
                        v.python_source,
                        name,
                        tuple(written.arg_types),
                        backward,
                        tuple(trials(label, v.python_source, name)),
                    )
                    yield recs, run


def _record(opts, src: dict, v, index: int, label: str, unit: str, emitted, written, tc: dict, verify: str) -> dict:
    """A variant's row of one unit, before its compile evidence."""
    from builder.warp_backend import codegen

    u = UNITS[unit]
    return {
        "id": f"{label}/{unit}",
        "config": opts.config,
        "seed": opts.seed,
        "split": "train",
        "index": index,
        "category": src["category"],
        "kernel_name": src["kernel_name"],
        **source_columns(v.python_source),
        **unit_columns(u.target, u.pass_, emitted.ir, emitted.entry, emitted.tu, codegen.options_json(emitted.options)),
        "arg_names": written.arg_names,
        "arg_types": written.arg_types,
        "builtins": builtins(v.python_source),
        "warp_version": tc["warp"],
        "generator_version": GENERATOR_VERSION,
        "normalized_sha256": normalized_sha256(v.python_source),
        "verify": "none" if verify == "none" else "compile",
        **NOT_COMPILED,
        **_execution_columns(None),
        "derived_from": src["derived_from"],
        "transforms": list(v.transforms),
        **{c: src[c] for c in ("source_path", "package", "package_version", "license", "copyright")},
        "qualified_name": src["qualified_name"],
    }
