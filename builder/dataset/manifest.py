"""Completion records and the manifest: what makes a build resumable and its output checkable.

Each finished shard writes ``.done/SHARD.json`` (its files' paths, rows and SHA-256) after its files; a
``--resume`` run reuses a shard only when its record is there and every file it names still hashes the same.
``manifest.json`` is written last: every file of the folder with its rows and SHA-256, the options and the
generator version. It holds nothing that depends on the machine, the engine or the time. Its ``builder`` field
marks the folder as this tool's: ``--overwrite`` replaces no other, and ``--resume`` repairs a finished folder
by rebuilding the shards whose files are missing or no longer match it.
"""

from __future__ import annotations

import hashlib
import json

from builder import GENERATOR_VERSION
from builder.build_options import BuildRequest
from builder.built_folder import BUILDER, ours
from builder.dataset.renumber import is_empty, planned
from builder.dataset.shards import DONE, record_path
from builder.folder_format import MANIFEST
from builder.folder_format import sha256_bytes as sha256
from builder.sources.plan import Shard

NAME = MANIFEST  # the folder format lives in builder.folder_format


def build_key(request: BuildRequest) -> str:
    """Names the build's staging folder under --resume: only a run with the same options, generator, recorded
    split of the written kernels and derived kernels' names reuses it (a regrouped ``real`` puts kernels in other
    splits, a rewritten ``names.json`` renames derived kernels: no shard is kept)."""
    from builder.derive import NAMES_FILE
    from builder.shipped.splits import GROUPS_FILE

    inputs = {f.name: hashlib.sha256(f.read_bytes()).hexdigest() for f in (GROUPS_FILE, NAMES_FILE)}
    doc = json.dumps({"generator_version": GENERATOR_VERSION, **inputs, **request.public()}, sort_keys=True)
    return hashlib.sha256(doc.encode()).hexdigest()[:12]


def read(store) -> dict | None:
    """The folder's manifest if this tool wrote it, else None (no manifest, not JSON, or someone else's)."""
    raw = store.get(NAME)
    if raw is None:
        return None
    try:
        doc = json.loads(raw)
    except ValueError:
        return None
    return ours(doc)


def same_build(doc: dict, request: BuildRequest) -> bool:
    """The manifest records these options and this generator: its shards are the ones this build writes."""
    return doc.get("generator_version") == GENERATOR_VERSION and doc.get("options") == request.public()


def finished(store, shard: Shard, doc: dict | None = None, configs: tuple[str, ...] = ()) -> dict | None:
    """The shard's record if every file it names is present and unchanged, else None: its completion record,
    or, in a finished folder (``doc``, its manifest), the manifest's entries for the shard's file of each of
    ``configs``."""
    raw = store.get(record_path(shard))
    if raw is not None:
        try:
            record = json.loads(raw)
        except ValueError:
            record = None
    else:
        record = _listed(doc, shard, configs) if doc else None
    if not isinstance(record, dict) or (record.get("start"), record.get("stop")) != (shard.start, shard.stop):
        return None
    for f in record.get("files", []):
        if is_empty(f):
            continue  # the shard yielded no row of that config: there is no file to check
        data = store.get(f["path"])
        if data is None or sha256(data) != f["sha256"]:
            return None
    return record


def _listed(doc: dict, shard: Shard, configs: tuple[str, ...]) -> dict | None:
    entries = {planned(f): f for f in doc["files"] if isinstance(f, dict) and "path" in f}
    entries |= {p: {"path": p, "rows": 0, "sha256": None} for p in doc.get("empty", [])}
    files = [entries.get(f"{config}/{shard.filename()}") for config in configs]
    if not configs or None in files:
        return None
    record = {"shard": shard.key(), "split": shard.split, "start": shard.start, "stop": shard.stop}
    keys = ("path", "rows", "sha256", "planned")
    return {**record, "files": [{k: f[k] for k in keys if k in f} for f in files]}


def write(
    store, request: BuildRequest, records: list[dict], extra: dict[str, bytes], left_out: dict | None = None
) -> None:
    """``extra``: the card's files (README.md, plots), listed with the shards; ``left_out``: rows each config's
    shards left out, by reason (kept here so a card rendered again, for a push, shows them too)."""
    files = [f for r in records for f in r["files"] if not is_empty(f)]
    files += [{"path": p, "rows": None, "sha256": sha256(d)} for p, d in sorted(extra.items())]
    doc = {
        "builder": BUILDER,
        "generator_version": GENERATOR_VERSION,
        "options": request.public(),
        "left_out": left_out or {},
        "files": sorted(files, key=lambda f: f["path"]),
    }
    empty = sorted(f["path"] for r in records for f in r["files"] if is_empty(f))
    if empty:  # planned shard files that held no row (builder.dataset.renumber): --resume knows they are done
        doc["empty"] = empty
    data = (json.dumps(doc, indent=1) + "\n").encode()
    if store.get(NAME) != data:  # a repair that changed nothing leaves the manifest untouched
        store.put(NAME, data)
    store.remove(DONE)
