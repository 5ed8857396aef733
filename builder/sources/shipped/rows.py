"""Rows of the shipped configs (``real``): every shipped kernel Warp can emit, for each target and
pass, with compile evidence.

Order and ids are deterministic: sources (examples, library, tests), then modules by dotted name, then kernels by
source line, then generic overloads by signature, then cuda-forward, cuda-backward, cpu. A row's id is
``CONFIG/SPLIT/MODULE:KERNEL[SIGNATURE]/TARGET_CONFIG`` (``real/test/...``). What could
not be used (modules that need packages the build does not install, kernels Warp cannot emit, units that did not
compile) is counted by reason in ``Summary``.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field, fields

from builder import GENERATOR_VERSION
from builder.build_options import BuildOptions
from builder.configs import UNITS
from builder.errors import ConfigError
from builder.schema import features
from builder.shipped.modules import ShippedModule, modules, runs_code_at_import, strided
from builder.shipped.overlap import builtins, normalized_sha256
from builder.shipped.packages import REDISTRIBUTABLE, SOURCES, header
from builder.shipped.splits import assign, group_of
from builder.sources.columns import NOT_COMPILED, source_columns, unit_columns

REAL_CONFIGS = tuple(UNITS)  # the units a shipped kernel gets rows of, in row order
# seconds for one shipped module's import in its own process (kills a hung import); a loaded 2-core machine
# took over 120 s for two of warp's test modules, which then silently dropped their kernels
IMPORT_TIMEOUT = 300.0
BATCH_KERNELS = 24  # kernels collected before their units are compiled together


def evidence(verify: str) -> str:
    """The evidence a shipped row carries for the build's ``--verify``: compiled, never executed (a shipped kernel's
    inputs are its example's or test's own, which a row does not hold), or none."""
    return "none" if verify == "none" else "compile"


@dataclass(frozen=True)
class Sample:
    """A smaller set of shipped kernels than the build's (``python -m builder.sources.shipped`` timings, tests)."""

    modules: tuple[str, ...] | None = None  # dotted module names to keep (a shard's modules); None: all
    max_kernels: int | None = None  # stop after this many kernels; None: every kernel
    stride: dict[str, int] | None = None  # {source: k}: keep every k-th module of that source
    split: str | None = None  # a shard's split: write only its kernels of this split (builder.shipped.splits)

    def __post_init__(self) -> None:
        if self.max_kernels is not None and (not isinstance(self.max_kernels, int) or self.max_kernels < 1):
            raise ConfigError(f"max_kernels must be a positive integer or None, got {self.max_kernels!r}")
        bad = {s: k for s, k in (self.stride or {}).items() if s not in SOURCES or not isinstance(k, int) or k < 1}
        if bad:
            raise ConfigError(f"bad stride {bad}: SOURCE=K with SOURCE one of {', '.join(SOURCES)} and K >= 1")


@dataclass
class Summary:
    modules: Counter = field(default_factory=Counter)  # source -> modules imported
    modules_skipped: Counter = field(default_factory=Counter)  # reason -> modules
    kernels: Counter = field(default_factory=Counter)  # source -> kernels with at least one row
    kernels_skipped: Counter = field(default_factory=Counter)  # reason -> kernels
    rows: Counter = field(default_factory=Counter)  # "source/config" -> rows
    rows_left_out: Counter = field(default_factory=Counter)  # reason -> rows
    # phase -> wall seconds a worker spent in it (collection: importing modules and emitting their kernels in the
    # forked child; compile: the compilers and the rows), summed over shards: worker-seconds, never in the output
    seconds: Counter = field(default_factory=Counter)

    def to_json(self) -> dict[str, dict[str, float]]:
        """Plain data (a shard's completion record carries it, so a resumed build still counts its shards)."""
        return {f.name: dict(sorted(getattr(self, f.name).items())) for f in fields(self)}

    @classmethod
    def merged(cls, parts: list[dict]) -> Summary:
        """The summary of a build from its shards' ``to_json`` records."""
        out = cls()
        for part in parts:
            for f in fields(cls):
                getattr(out, f.name).update(part.get(f.name, {}))
        return out

    def lines(self) -> list[str]:
        def fmt(c: Counter) -> str:
            return ", ".join(f"{k}: {n}" for k, n in sorted(c.items(), key=lambda kv: (-kv[1], str(kv[0])))) or "none"

        phases = ", ".join(f"{k} {v:.0f} s" for k, v in sorted(self.seconds.items())) or "none"
        return [
            f"worker time: {phases}",
            f"modules imported: {fmt(self.modules)}",
            f"modules skipped: {fmt(self.modules_skipped)}",
            f"kernels: {fmt(self.kernels)}",
            f"kernels skipped: {fmt(self.kernels_skipped)}",
            f"rows: {fmt(self.rows)}",
            f"rows left out: {fmt(self.rows_left_out)}",
        ]


def record(
    mod: ShippedModule,
    kernel,
    config: str,
    unit: tuple[str, str, str, str],
    verify: str,
    warp_version: str,
    terms: tuple[str, str],
    split: str,
    shipped: str = "real",
) -> dict:
    """A row (without its compile evidence) for one kernel result of ``shipped_import`` and one unit, in ``split``;
    ``terms`` is the licence and copyright notice its file's rows carry (``terms()``); ``shipped`` the config."""
    kernel_license, notice = terms
    tu, ir, entry, options = unit
    target, pass_, _ = UNITS[config].as_tuple()
    pkg = mod.package
    return {
        "id": f"{shipped}/{split}/{mod.name}:{kernel.key}{kernel.signature}/{config}",
        "config": shipped,
        "split": split,
        "category": mod.part.name,
        "kernel_name": kernel.key,
        **source_columns(kernel.python_source),
        **unit_columns(target, pass_, ir, entry, tu, options),
        "arg_names": kernel.arg_names,
        "arg_types": kernel.arg_types,
        "builtins": builtins(kernel.python_source),
        "warp_version": warp_version,
        "generator_version": GENERATOR_VERSION,
        "normalized_sha256": normalized_sha256(kernel.python_source),
        "verify": verify,
        **NOT_COMPILED,
        "source_path": f"{mod.path}:{kernel.line}",
        "package": pkg.distribution,
        "package_version": pkg.version,
        "license": kernel_license,
        "copyright": notice,
        "qualified_name": f"{mod.name}.{kernel.qualname}",
        "split_group": group_of(pkg),
    }


def shipped_rows(opts: BuildOptions, sample: Sample = Sample(), summary: Summary | None = None) -> Iterator[dict]:
    """Every row of the real config for the build options ``opts`` (its ``real_sources``, its ``verify`` as
    ``evidence`` maps it), in order, within ``sample``; ``summary`` (when given) is filled as they go. The packages
    are the caller's to check (``builder.shipped.packages.require``): a build's plan does, once."""
    from builder.warp_backend import compilers, shipped_compile, shipped_import

    summary = summary if summary is not None else Summary()
    verify = evidence(opts.verify)
    mods = modules(opts.shipped_sources)
    if opts.real_modules:
        mods = mods[: opts.real_modules]
    assigned = assign(tuple(mods))
    mods = strided(mods, sample.stride or {})
    if sample.modules is not None:
        mods = [m for m in mods if m.name in sample.modules]
    tc = {"warp": compilers.toolchain()["warp"], **{t: compilers.toolchain_json(t) for t in ("cuda", "cpu")}}
    names = list(features(opts.config))
    seen: set[str] = set()
    pending: list[tuple[ShippedModule, object]] = []
    taken = 0

    def compiled(batch: list) -> Iterator[dict]:  # a batch of kernels' rows, their units compiled together
        return _timed(summary, _finish(opts.config, batch, verify, tc, names, seen, summary, shipped_compile))

    with shipped_import.Collector(IMPORT_TIMEOUT) as collector:
        for mod in mods:
            if sample.max_kernels is not None and taken >= sample.max_kernels:
                break
            text = mod.file().read_text(encoding="utf-8")
            if mod.part.guard and runs_code_at_import(text):
                # examples are imported only when that runs none of their work (tests and library only register)
                summary.modules_skipped["example runs code at import (no __main__ guard)"] += 1
                continue
            file_terms = terms(mod, text)
            if file_terms[0] not in REDISTRIBUTABLE:
                summary.modules_skipped[f"licence {file_terms[0]} does not allow redistribution"] += 1
                continue
            began = time.perf_counter()
            res = collector.collect(mod, REAL_CONFIGS)
            summary.seconds["collection"] += time.perf_counter() - began
            if res.skipped:
                summary.modules_skipped[res.skipped] += 1
                continue
            summary.modules[mod.source] += 1
            summary.kernels_skipped.update(res.not_emitted)
            left_out = dict(mod.package.leave_out)
            for kernel in res.kernels:
                if sample.max_kernels is not None and taken >= sample.max_kernels:
                    break
                split = assigned.split_of(mod, f"{mod.path}:{kernel.line}")
                if split is None or (sample.split and split != sample.split):  # left out, or another shard's row
                    continue
                why = left_out.get(f"{mod.name}.{kernel.qualname}")
                if why:
                    summary.kernels_skipped["left out by its package entry: " + why] += 1
                    continue
                if kernel.unresolved:
                    summary.kernels_skipped["source not self-contained: reads names local to a function or class"] += 1
                    continue
                summary.rows_left_out.update(kernel.skipped.values())
                if not kernel.units:
                    summary.kernels_skipped["Warp emits no unit for it"] += 1
                    continue
                taken += 1
                pending.append((mod, kernel, file_terms, split))
            if len(pending) >= BATCH_KERNELS:
                yield from compiled(pending)
                pending = []
        yield from compiled(pending)


def _timed(summary: Summary, rows: Iterator[dict]) -> Iterator[dict]:
    """``rows``, with the time spent making them (not the consumer's) added to the compile phase."""
    while True:
        began = time.perf_counter()
        row = next(rows, None)
        summary.seconds["compile"] += time.perf_counter() - began
        if row is None:
            return
        yield row


def terms(mod: ShippedModule, text: str) -> tuple[str, str]:
    """The licence (SPDX id) and copyright notice a module's rows carry: its file header's when it has them (a
    file may hold code under other terms than its package's), else its package's."""
    spdx, notices = header(text)
    return spdx or mod.package.license, "; ".join(notices) or mod.package.copyright


def _finish(
    shipped: str, pending, verify: str, tc: dict, names: list[str], seen: set[str], summary: Summary, shipped_compile
):
    """Compile a group of kernels' units and yield their rows of the shipped config ``shipped``."""
    recs, jobs = [], []
    for mod, kernel, file_terms, split in pending:
        for config in REAL_CONFIGS:
            if config not in kernel.units:
                continue
            rec = record(mod, kernel, config, kernel.units[config], verify, tc["warp"], file_terms, split, shipped)
            n = 2
            while rec["id"] in seen:  # one Python module may hold equal keys in several Warp modules
                head = f"{shipped}/{split}/{mod.name}:{kernel.key}{kernel.signature}"
                rec["id"] = f"{head}~{n}/{config}"
                n += 1
            seen.add(rec["id"])
            target = UNITS[config].target
            job = shipped_compile.CompileJob(target, rec["module_source"], (rec["entry_point"],))
            recs.append((mod, config, rec, job))
            jobs.append(job)
    if verify == "compile":
        shipped_compile.compile_jobs(jobs)
    kept = set()
    for mod, config, rec, job in recs:
        if verify == "compile":
            if not job.compiled:
                summary.rows_left_out[job.error.split(":")[0] + " failed"] += 1
                continue
            rec |= job.evidence(tc[rec["target"]])
        summary.rows[f"{mod.source}/{config}"] += 1
        if rec["id"].rsplit("/", 1)[0] not in kept:
            kept.add(rec["id"].rsplit("/", 1)[0])
            summary.kernels[mod.source] += 1
        yield {k: rec[k] for k in names}


def report(summary: Summary, config: str = "real", stream=None) -> None:
    """The build summary of a shipped config on stderr: what was used, what was skipped and why."""
    print(f"warp_cuda_ir {config}: " + "; ".join(summary.lines()), file=stream or sys.stderr, flush=True)
