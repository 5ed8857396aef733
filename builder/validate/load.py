"""Read a built folder (or a Hub repo) into ``{config: {split: pyarrow.Table}}``.

A shard that is not readable Parquet stops the run with one line naming it (``CorruptShard``); a folder or
repo that is not a dataset at all is a ``UsageError``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from builder.configs import CONFIGS
from builder.errors import CorruptShard, UsageError
from builder.folder_format import split_files
from builder.schema import SPLITS, features


@dataclass
class Loaded:
    source: str
    folder: Path | None  # None for a Hub repo
    config: str | None  # the one config asked for, or None for all
    tables: dict[str, dict[str, pa.Table]]
    mismatched: dict[str, list[str]] = field(
        default_factory=dict
    )  # shards whose schema differs from their split's first


def matches_features(schema: pa.Schema, config: str) -> bool:
    """The shard has exactly its config's columns, in order, with their Arrow types (an unknown config's
    directory is reported by name, not shard by shard)."""
    if config not in CONFIGS:
        return True
    expected = features(config).arrow_schema
    return schema.names == expected.names and all(schema.field(f.name).type.equals(f.type) for f in expected)


def is_repo_id(source: str) -> bool:
    return bool(re.fullmatch(r"[\w.-]+/[\w.-]+", source)) and not Path(source).exists()


def load(source: str, config: str | None) -> Loaded:
    path = Path(source)
    if path.is_dir():
        return _load_folder(path, config)
    if path.exists() or not is_repo_id(source):
        raise UsageError(f"{source!r} is neither a dataset folder nor a Hub repo id (ORG/NAME)")
    return _load_repo(source, config)


def read_shard(folder: Path, path: Path) -> pa.Table:
    try:
        return pq.read_table(path)
    except (pa.ArrowException, OSError) as exc:
        from builder.dataset import manifest
        from builder.dataset.storage import LocalStore

        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        repair = manifest.repair_command(str(folder), manifest.read(LocalStore(folder)))
        raise CorruptShard(str(folder), path.relative_to(folder).as_posix(), reason, repair) from exc


def _load_folder(folder: Path, config: str | None) -> Loaded:
    files = split_files(folder)
    if not files:
        raise UsageError(f"{str(folder)!r} holds no CONFIG/SPLIT-*.parquet shards; build one with `warp-cuda-ir build`")
    if config:
        if config not in files:
            raise UsageError(f"config {config!r} not in {str(folder)!r}; present: {', '.join(files)}")
        files = {config: files[config]}
    loaded = Loaded(str(folder), folder, config, {})
    for cfg, splits in files.items():
        loaded.tables[cfg] = {}
        for split, paths in splits.items():
            parts = [read_shard(folder, p) for p in paths]
            try:
                loaded.tables[cfg][split] = pa.concat_tables(parts, promote_options="default")
            except (pa.ArrowInvalid, TypeError):
                loaded.tables[cfg][split] = parts[0]
            loaded.mismatched.setdefault(cfg, []).extend(
                f"{cfg}/{p.name}" for p, t in zip(paths, parts) if not matches_features(t.schema, cfg)
            )
    return loaded


def _load_repo(repo_id: str, config: str | None) -> Loaded:
    import datasets

    try:
        names = [config] if config else datasets.get_dataset_config_names(repo_id)
        tables = {}
        for cfg in names:
            dd = datasets.load_dataset(repo_id, cfg)
            tables[cfg] = {s: dd[s].data.table for s in SPLITS if s in dd}
    except Exception as exc:  # noqa: BLE001 - any load failure is a usage problem for this tool
        raise UsageError(f"cannot load {repo_id!r}: {type(exc).__name__}: {str(exc).splitlines()[0][:200]}") from exc
    return Loaded(repo_id, None, config, tables)
