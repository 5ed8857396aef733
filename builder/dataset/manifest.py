"""Completion records and the manifest: what makes a build resumable and its output checkable.

Each finished shard writes ``.done/SHARD.json`` (its files' paths, rows and SHA-256) after its files; a
``--resume`` run reuses a shard only when its record is there and every file it names still hashes the same.
``manifest.json`` is written last: every file of the folder with its rows and SHA-256, the options and the
generator version. It holds nothing that depends on the machine, the engine or the time.
"""

from __future__ import annotations

import hashlib
import json

from builder import GENERATOR_VERSION
from builder.config import BuildOptions
from builder.dataset.plan import Shard
from builder.dataset.shards import DONE, record_path
from builder.dataset.storage import sha256

NAME = "manifest.json"


def options_doc(options: list[BuildOptions]) -> dict:
    return {"configs": [o.config for o in options], **options[0].public()}


def build_key(options: list[BuildOptions]) -> str:
    """Names the build's staging folder under --resume: only a run with the same options and generator reuses it."""
    doc = json.dumps({"generator_version": GENERATOR_VERSION, **options_doc(options)}, sort_keys=True)
    return hashlib.sha256(doc.encode()).hexdigest()[:12]


def finished(store, shard: Shard) -> dict | None:
    """The shard's completion record if every file it names is present and unchanged, else None."""
    raw = store.get(record_path(shard))
    if raw is None:
        return None
    try:
        record = json.loads(raw)
    except ValueError:
        return None
    if (record.get("start"), record.get("stop")) != (shard.start, shard.stop):
        return None
    for f in record.get("files", []):
        data = store.get(f["path"])
        if data is None or sha256(data) != f["sha256"]:
            return None
    return record


def write(store, options: list[BuildOptions], records: list[dict], extra: dict[str, bytes]) -> None:
    """``extra``: the card's files (README.md, plots), listed with the shards."""
    files = [f for r in records for f in r["files"]]
    files += [{"path": p, "rows": None, "sha256": sha256(d)} for p, d in sorted(extra.items())]
    doc = {
        "generator_version": GENERATOR_VERSION,
        "options": options_doc(options),
        "files": sorted(files, key=lambda f: f["path"]),
    }
    store.put(NAME, (json.dumps(doc, indent=1) + "\n").encode())
    store.remove(DONE)
