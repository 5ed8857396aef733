"""The folder format, written by the build and read back by the validator, the card renderer and the push:
``CONFIG/SPLIT-iiiii-of-nnnnn.parquet`` shards (``shard_name``), ``README.md`` and ``manifest.json``
(``MANIFEST``), and the SHA-256 helpers every file and text column is hashed with.

Also the two facts about rows that more than one reader needs: the sha256 of a text column, and which category
cycle a build used (``index % len(categories)``), read off its rows.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path

from builder.configs import CONFIGS
from builder.grammar.policy import CATEGORIES
from builder.schema import SPLITS

SHARD_NAME = re.compile(r"^(?P<split>[a-z]+)-(?P<index>\d{5})-of-(?P<count>\d{5})\.parquet$")
MANIFEST = "manifest.json"


def shard_name(split: str, index: int, count: int) -> str:
    return f"{split}-{index:05d}-of-{count:05d}.parquet"


def split_shards(config_dir: Path, split: str) -> list[Path]:
    """A split's shard files in a config's directory, in name (= index) order."""
    return sorted(Path(config_dir).glob(f"{split}-*.parquet"))


def split_files(folder: Path) -> dict[str, dict[str, list[Path]]]:
    """``{config: {split: [shard paths]}}`` for every config directory holding shards, configs in schema order."""
    out: dict[str, dict[str, list[Path]]] = {}
    for cfg_dir in sorted(p for p in Path(folder).iterdir() if p.is_dir() and not p.name.startswith(".")):
        for split in SPLITS:
            files = split_shards(cfg_dir, split)
            if files:
                out.setdefault(cfg_dir.name, {})[split] = files
    order = {c: i for i, c in enumerate(CONFIGS)}  # cuda-forward first: it is the default config
    return dict(sorted(out.items(), key=lambda kv: (order.get(kv[0], len(order)), kv[0])))


def missing_shards(config: str, split: str, files: list[Path]) -> list[str]:
    """Shards a split's own file names say exist (``-of-nnnnn``) but are not there, as ``CONFIG/NAME``."""
    counts = {int(m["count"]) for f in files if (m := SHARD_NAME.match(f.name))}
    present = {f.name for f in files}
    return [
        f"{config}/{shard_name(split, i, n)}"
        for n in sorted(counts)
        for i in range(n)
        if shard_name(split, i, n) not in present
    ]


@dataclass(frozen=True)
class ManifestEntry:
    path: str  # relative to the folder, CONFIG/NAME
    rows: int | None
    sha256: str | None


def read_manifest(folder: Path) -> dict[str, ManifestEntry] | None:
    """The Parquet shards ``manifest.json`` lists, by relative path; None when the folder has no manifest.

    The build writes ``{"files": [{"path", "rows", "sha256"}, ...]}`` last; it lists the card's files too (rows
    null), which are left out here because ``push`` renders the card again.
    """
    path = Path(folder) / MANIFEST
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise ValueError(f"{MANIFEST} in {str(folder)!r} is not valid JSON: {exc}") from exc
    listed = data.get("files") if isinstance(data, dict) else None
    if not isinstance(listed, list):
        raise ValueError(f"{MANIFEST} in {str(folder)!r} has no 'files' list")
    out = {}
    for item in listed:
        rel = item.get("path") if isinstance(item, dict) else None
        if not isinstance(rel, str):
            raise ValueError(f"{MANIFEST} in {str(folder)!r} has an entry without a path: {item!r}")
        if rel.endswith(".parquet"):
            rows = item.get("rows")
            out[rel] = ManifestEntry(rel, int(rows) if rows is not None else None, item.get("sha256"))
    return out


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_text(text: str | None) -> str:
    return sha256_bytes((text or "").encode())


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def infer_categories(indices: list[int], categories: list[str]) -> tuple[str, ...]:
    """The category cycle a build used, from its rows' ``index`` and ``category`` (row i has cycle[i % len]).

    The default cycle when every row fits it (a small build shows only its first categories); else the cycle
    read off the rows in index order when it explains every row; else the distinct categories, sorted.
    """
    if all(c == CATEGORIES[i % len(CATEGORIES)] for i, c in zip(indices, categories)):
        return tuple(CATEGORIES)
    distinct = sorted(set(categories))
    # any row fixes its position in the cycle: a config can lack some indices (cuda-backward has no row for a
    # kernel without an adjoint), so the first len(cycle) indices need not all be there
    slots = [""] * len(distinct)
    for i, c in zip(indices, categories):
        slots[i % len(slots)] = slots[i % len(slots)] or c
    ordered = tuple(slots)
    if "" not in ordered and all(c == ordered[i % len(ordered)] for i, c in zip(indices, categories)):
        return ordered
    return tuple(distinct)
