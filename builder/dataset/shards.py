"""The one shard function every engine runs: a shard's rows, as its row source writes them (``builder.sources``),
-> one Parquet file per config (``CONFIG/SPLIT-xxxxx-of-yyyyy.parquet``).

The local engine calls it in the build process or in a process pool, the Ray engine in a Ray task; the bytes it
writes depend only on (options, shard), so every engine produces the same files.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import tempfile
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.parquet as pq

from builder.build_options import BuildOptions
from builder.dataset import faults, interrupts
from builder.dataset.progress import Heartbeat
from builder.dataset.storage import open_store
from builder.folder_format import sha256_bytes as sha256
from builder.schema import features
from builder.sources.plan import Shard

ROW_GROUP = 100  # rows per Parquet row group: a streaming reader fetches one group at a time
DONE = ".done"  # per-shard completion records, removed once the manifest is written


@dataclass(frozen=True)
class ShardJob:
    options: tuple[BuildOptions, ...]  # one per config; sizes, seed and sharding are the same in all
    shard: Shard
    store: str  # the folder being written: a local path or an fsspec URL
    evidence_dir: str | None = None  # shared with other shards when they run on the same machine
    progress_dir: str | None = None  # where the shard beats its rows so far (builder.dataset.progress)


def record_path(shard: Shard | str) -> str:
    """Where a shard's completion record is kept: by the shard, or the key its record holds."""
    return f"{DONE}/{shard if isinstance(shard, str) else shard.key()}.json"


def to_parquet(rows: list[dict], config: str) -> bytes:
    table = pa.Table.from_pylist(rows, schema=features(config).arrow_schema)  # the config's own columns
    buf = io.BytesIO()
    pq.write_table(table, buf, row_group_size=ROW_GROUP)
    return buf.getvalue()


def run_shard(job: ShardJob) -> dict:
    """Write the shard's file for every config, then its completion record; return the record."""
    from builder.warp_backend import codegen  # Warp loads in the worker that runs a shard, not on import

    codegen.init_quietly()
    shard, first = job.shard, job.options[0]
    faults.at_start(shard.key(), first.seed, shard.split, shard.start)
    store = open_store(job.store)
    record = {"shard": shard.key(), "split": shard.split, "start": shard.start, "stop": shard.stop}
    record["files"], summary = _files(store, job)
    if summary:  # what the source left out, by reason: a resumed build still reports its reused shards
        record["summary"] = summary
    store.put(record_path(shard), json.dumps(record, indent=1).encode())
    return record


def _files(store, job: ShardJob) -> tuple[list[dict], dict]:
    """One Parquet file per config of the shard's source, written by that source's ``rows``."""
    from builder.sources import source_named

    shard, source = job.shard, source_named(job.shard.source)
    files, summary = [], {}
    beat = Heartbeat(job.progress_dir, shard)
    with _evidence(job.evidence_dir, job.options[0]) as evidence:
        options = tuple(dataclasses.replace(opts, evidence_dir=evidence) for opts in job.options)
        done: dict[str, list[dict]] = {opts.config: [] for opts in options}
        for config, row in source.shard_rows(options, shard, summary):
            interrupts.current().check()  # a signal deferred by the handler stops the build within a row
            done[config].append(row)
            beat.beat()
    for k, opts in enumerate(options):
        path = f"{opts.config}/{shard.filename()}"
        if not done[opts.config]:  # no 0-row file: datasets cannot read one (builder.dataset.renumber)
            files.append({"path": path, "rows": 0, "sha256": None})
            continue
        hook = (lambda: faults.before_commit(shard.key())) if k == 0 else None
        files.append(_put(store, path, to_parquet(done[opts.config], opts.config), hook))
    return files, summary


def _put(store, path: str, data: bytes, before_commit) -> dict:
    store.put(path, data, before_commit=before_commit)
    return {"path": path, "rows": pq.read_metadata(io.BytesIO(data)).num_rows, "sha256": sha256(data)}


@contextlib.contextmanager
def _evidence(shared: str | None, opts: BuildOptions):
    if shared or opts.verify == "none":
        yield shared
        return
    with tempfile.TemporaryDirectory(prefix="warp_cuda_ir_evidence_") as own:
        yield own
