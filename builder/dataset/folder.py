"""Build the publishable folder: CONFIG/SPLIT-xxxxx-of-yyyyy.parquet, a README card and manifest.json.

The driver plans the shards (``plan``), skips those a stopped run of the same options (or a ``--resume`` run)
finished before (``manifest``), hands the rest to an engine (``engines.local`` or ``engines.ray``, both running
``shards.run_shard``), then renders the card, writes the manifest last and commits the folder (``destination``).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import uuid
from collections.abc import Callable
from pathlib import Path

from builder.build_options import BuildRequest
from builder.configs import spec
from builder.dataset import chatter, faults, interrupts, manifest
from builder.dataset.destination import open_destination
from builder.dataset.progress import SECONDS_PER_ROW, Progress, hms
from builder.dataset.renumber import is_empty, renumber
from builder.dataset.shards import ShardJob, record_path
from builder.sources import Shard, build_plan, grouped, shard_options
from builder.sources.base import rows_left_out
from builder.warp_backend import codegen

# writes README.md and its plots into a folder of finished shards, for the build that wrote them
# (folder, the request that built it, rows left out per config and reason): writes the folder's card
CardRenderer = Callable[[Path, BuildRequest, dict], object]
WARN_ABOVE = 3600.0  # seconds: a build expected to run longer says so before it starts


def make_engine(
    name: str, num_proc: int, address: str | None, request: BuildRequest, worker_tmp: Path, log: Path | None = None
):
    """Workers keep their temporary files (evidence, Warp's compiler scratch) in ``worker_tmp``, inside the build's
    work directory, so one stopped mid-shard leaves nothing behind; Ray workers on another machine, where it does
    not exist, fall back to their default. Local workers write Warp's output to ``log`` (``chatter``); Ray keeps
    its workers' output in its own session logs."""
    if name == "ray":
        from builder.dataset.engines.ray import RayEngine

        gpu = any(spec(c).gpu for c in request.configs)
        return RayEngine(address, gpu=gpu, env={"TMPDIR": str(worker_tmp)})
    from builder.dataset.engines.local import LocalEngine

    env = {"TMPDIR": str(worker_tmp)} | ({chatter.LOG_ENV: str(log)} if log else {})
    return LocalEngine(num_proc, env=env, log=log)


def build_folder(
    request: BuildRequest,
    out: str | Path,
    num_proc: int = 1,
    overwrite: bool = False,
    *,
    engine: str = "local",
    address: str | None = None,
    resume: bool = False,
    card: CardRenderer,
    log: Path | None = None,
) -> dict[str, dict[str, int]]:
    """Build ``request`` into ``out`` and return its rows per config and split. ``card`` writes the folder's card
    (``dataset_card.render``: handed in by the command, so the build does not import what sits above it). With
    ``log``, what Warp prints while rows are made goes there, not to the terminal (``chatter``)."""
    dest = open_destination(str(out), request, overwrite, resume)  # checks; writes nothing
    # planned before anything is written or started: a shipped config's plan checks the installed packages
    shards = build_plan(request)
    # named before it exists, so the cleanup below knows it whenever a signal lands
    work = Path(tempfile.gettempdir()) / f"warp_cuda_ir_build_{uuid.uuid4().hex[:12]}"
    saved_env = {k: os.environ.get(k) for k in (codegen.KERNEL_CACHE_ENV,)}
    done = keep = built = False
    try:
        dest.create()
        work.mkdir(mode=0o700)
        os.environ[codegen.KERNEL_CACHE_ENV] = str(work / "kernel_cache")  # inherited by worker processes
        (work / "tmp").mkdir()
        with chatter.sent_to(log):
            codegen.init()  # Warp's no-CUDA-driver warning, once (to the log with one); workers initialise silently
        runner = make_engine(engine, num_proc, address, request, work / "tmp", log)
        try:
            evidence = str(work / "evidence") if engine == "local" else None
            records = _run(request, shards, dest, runner, evidence, resume or dest.continuing, work, log)
        finally:
            runner.close()
        built = True
        _finish(dest, request, records, card)
        done = True
        return _stats(request, records)
    except interrupts.Interrupted as exc:
        finished = dest.finished_shards()
        keep = resume or (dest.keeps_finished and finished > 0)
        if keep:
            exc.detail = _kept(dest, finished)
        raise
    except Exception:
        # every shard was built and writing the card, the manifest or the folder failed (a full disk, say): the
        # shards stay, and the same command only finishes. A failure while shards are built (a generator bug, bad
        # options) would come back on the next run, so that build is discarded as before, unless --resume.
        finished = dest.finished_shards()
        keep = resume or (built and dest.keeps_finished and finished > 0)
        if keep and finished:
            print(f"warp-cuda-ir: {_kept(dest, finished)}", file=sys.stderr, flush=True)
        raise
    finally:
        for k, v in saved_env.items():
            os.environ.pop(k, None) if v is None else os.environ.__setitem__(k, v)
        if not done and not (keep or resume):
            dest.discard()
        codegen.leave_cache(work)  # before the folder goes: later Warp work in this process must not recreate it
        shutil.rmtree(work, ignore_errors=True)


def _kept(dest, finished: int) -> str:
    again = "the same command" if dest.keeps_finished else "the same command with --resume"
    return f"{finished} finished shards kept in {dest.kept()}; run {again} to continue"


def _run(
    request: BuildRequest,
    shards: list[Shard],
    dest,
    runner,
    evidence: str | None,
    reuse: bool,
    work: Path,
    log: Path | None = None,
) -> list[dict]:
    records: dict[str, dict] = {}
    reused = []
    # a shard is written by its row source, for every config of that source in the build
    for s in shards:
        configs = tuple(o.config for o in shard_options(request, s))
        rec = manifest.finished(dest.store, s, dest.repair, configs) if reuse else None
        if rec is not None:
            records[s.key()], reused = rec, [*reused, s]
    beats = str(Path(work) / "progress")
    os.makedirs(beats, exist_ok=True)
    todo = [s for s in shards if s.key() not in records]
    jobs = [ShardJob(shard_options(request, s), s, dest.spec, evidence, beats) for s in todo]
    warn_scale(request, jobs, runner)
    generated = next((o for source, o in grouped(request) if source.name == "generated"), ())
    # with a log, a shard run in this process sends descriptor 2 there: progress keeps a copy of the terminal
    terminal = chatter.terminal() if log else None
    # rows of a split per second, as progress counts them (each program's rows of all its configs count once)
    expected = _parallel(jobs, runner) / (SECONDS_PER_ROW[request.options.verify] * len(generated)) if generated else 0
    progress = Progress(shards, len(generated), runner.name, stream=terminal, beats=beats, expected_rate=expected)
    if reused and getattr(dest, "continuing", False):
        print(
            f"warp-cuda-ir: continuing the stopped build in {dest.kept()}: {len(reused)} finished shards reused",
            file=sys.stderr,
            flush=True,
        )
    for s in reused:
        progress.finished(s, reused=True, written=_written(records[s.key()]))

    def on_done(job: ShardJob, record: dict) -> None:
        records[job.shard.key()] = record
        progress.finished(job.shard, written=_written(record))

    progress.tick()
    try:
        runner.run(jobs, on_done)
    except BaseException:
        progress.close()  # the ticker stops before the one line that says why
        raise
    else:
        progress.summary()
    finally:
        if terminal is not None:
            terminal.close()
    for source, opts in grouped(request):
        for o in opts:  # every config's left-out rows, also where configs share shards
            mine = [s for s in shards if s.source == source.name and (source.shared_shards or s.config == o.config)]
            source.report([records[s.key()].get("summary", {}) for s in mine], o.config)
    return [records[s.key()] for s in shards]


def _written(record: dict) -> int:
    return sum(f["rows"] for f in record.get("files", []))


def warn_scale(request: BuildRequest, jobs: list[ShardJob], runner) -> None:
    """Say before starting when the request is far beyond what this build can do here."""
    if not jobs:
        return
    slots = runner.slots()
    if runner.name == "local":
        cores = os.cpu_count() or 1
        if slots > len(jobs):
            _warn(f"--num-proc {slots} but only {len(jobs)} shards to build: at most {len(jobs)} processes work")
        if slots > cores:
            _warn(f"--num-proc {slots} exceeds the {cores} cores of this machine")
    rows = sum(j.shard.rows * len(j.options) for j in jobs)  # a shipped shard's rows are unknown (0) until built
    parallel = _parallel(jobs, runner)
    verify = request.options.verify
    eta = rows * SECONDS_PER_ROW[verify] / parallel
    if eta > WARN_ABOVE:
        _warn(
            f"about {rows} rows to build at roughly {1 / SECONDS_PER_ROW[verify]:.0f} rows/s per process "
            f"(verify={verify}); with {parallel} in parallel that is about {hms(eta)}"
        )


def _parallel(jobs: list[ShardJob], runner) -> int:
    """How many of ``jobs`` run at once: the runner's slots, bounded by the jobs and (locally) the cores."""
    slots = runner.slots()
    cores = (os.cpu_count() or 1) if runner.name == "local" else slots
    return max(1, min(slots, len(jobs), cores))


def _warn(message: str) -> None:
    print(f"warp-cuda-ir: warning: {message}", file=sys.stderr, flush=True)


def _finish(dest, request: BuildRequest, records: list[dict], card: CardRenderer) -> None:
    dest.store.sweep()
    renamed = renumber(dest.store, records)
    for before, after in zip(records, renamed):
        if after != before:  # a run continuing a build stopped from here on finds the shard's files where they are
            dest.store.put(record_path(after["shard"]), json.dumps(after, indent=1).encode())
    records = renamed
    faults.before_card()
    # what the shards left out, by config and reason (``sources.base.count_left_out``): into the card and manifest
    summaries = [r.get("summary", {}) for r in records]
    left_out = {opts.config: rows_left_out(summaries, opts.config) for opts in request}
    shard_files = {f["path"] for r in records for f in r["files"] if not is_empty(f)}
    folder = dest.local_folder()
    scratch = None
    try:
        if folder is None:  # an object store or a repair: render the card from a local copy of the shards
            folder = Path(scratch := tempfile.mkdtemp(prefix="warp_cuda_ir_card_"))
            for path in sorted(shard_files):
                (folder / path).parent.mkdir(parents=True, exist_ok=True)
                (folder / path).write_bytes(dest.store.get(path))
        card(folder, request, left_out)
        extra = {p: (folder / p).read_bytes() for p in sorted(_files(folder) - shard_files)}
        if dest.local_folder() is None:
            for p, data in extra.items():
                if dest.store.get(p) != data:  # a repaired folder keeps the card files that did not change
                    dest.store.put(p, data)
        manifest.write(dest.store, request, records, extra, left_out)
    finally:
        if scratch:
            shutil.rmtree(scratch, ignore_errors=True)
    interrupts.current().check()  # a signal whose exception was dropped during the card stops the build here
    dest.commit()


def _files(folder: Path) -> set[str]:
    return {
        p.relative_to(folder).as_posix()
        for p in folder.rglob("*")
        if p.is_file() and not p.relative_to(folder).as_posix().startswith(".")
    }


def _stats(request: BuildRequest, records: list[dict]) -> dict[str, dict[str, int]]:
    stats: dict[str, dict[str, int]] = {c: {} for c in request.configs}
    for r in records:
        for f in r["files"]:
            config = f["path"].split("/")[0]
            stats[config][r["split"]] = stats[config].get(r["split"], 0) + f["rows"]
    return stats
