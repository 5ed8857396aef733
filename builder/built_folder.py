"""A built folder (or a Hub repo), read once: what ``validate``, its checks, ``push`` and the card take instead of a
path.

``BuiltFolder.open(source)`` lists the shards (``CONFIG/SPLIT-*.parquet``, ``folder_format.split_files``) once;
the manifest, the build options it records and the tables are read on first use and kept. A shard that is not
readable Parquet stops the run with one line naming it (``CorruptShard``); a folder or repo that is not a dataset
at all is a ``UsageError``.
"""

from __future__ import annotations

import json
import re
from functools import cached_property
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from builder import GENERATOR_VERSION
from builder.configs import CONFIGS
from builder.errors import CorruptShard, UsageError
from builder.folder_format import MANIFEST, ManifestEntry, read_manifest, split_files
from builder.schema import SPLITS, features

CARD = "README.md"
BUILDER = "warp-cuda-ir"  # the manifest's "builder": the folder is one this tool wrote


def ours(doc) -> dict | None:
    """A parsed ``manifest.json`` if this tool wrote it, else None."""
    if not isinstance(doc, dict) or doc.get("builder") != BUILDER or not isinstance(doc.get("files"), list):
        return None
    return doc


def repair_command(folder: str, doc: dict | None) -> str:
    """The command that rebuilds a finished folder's missing or broken shards, and only those, with the options its
    manifest records (``--resume`` on a finished folder of the same options repairs it in place)."""
    from builder.build_options import cli_default, user_fields

    if doc is None or not isinstance(doc.get("options"), dict):
        return f"warp-cuda-ir build --out {folder} --overwrite (with the options it was built with)"
    if doc.get("generator_version") != GENERATOR_VERSION:
        return (
            f"warp-cuda-ir build --out {folder} --overwrite (it was built by generator "
            f"{doc.get('generator_version')}; this is {GENERATOR_VERSION})"
        )
    opts = doc["options"]
    argv = ["warp-cuda-ir build", f"--configs {','.join(opts.get('configs', []))}"]
    for f in user_fields():
        value = opts.get(f.name)
        shown = ",".join(value) if isinstance(value, list) else value
        if value is not None and shown != cli_default(f):
            argv.append(f"--{f.name.replace('_', '-')} {shown}")
    return " ".join([*argv, f"--out {folder}", "--resume"])


def is_repo_id(source: str) -> bool:
    return bool(re.fullmatch(r"[\w.-]+/[\w.-]+", source)) and not Path(source).exists()


def matches_features(schema: pa.Schema, config: str) -> bool:
    """The shard has exactly its config's columns, in order, with their Arrow types (an unknown config's
    directory is reported by name, not shard by shard)."""
    if config not in CONFIGS:
        return True
    expected = features(config).arrow_schema
    return schema.names == expected.names and all(schema.field(f.name).type.equals(f.type) for f in expected)


class BuiltFolder:
    """One built folder: ``path`` (None for a Hub repo), its shard ``files``, ``manifest``, ``options`` and
    ``tables``. ``config`` is the one config asked for (None: all); ``files`` and ``tables`` hold only it then."""

    def __init__(self, source: str, path: Path | None, config: str | None, files: dict[str, dict[str, list[Path]]]):
        self.source, self.path, self.config, self.files = source, path, config, files
        self._tables: dict[str, dict[str, pa.Table]] | None = None
        self.mismatched: dict[str, list[str]] = {}  # shards whose schema differs from their config's features

    @classmethod
    def open(cls, source: str | Path, config: str | None = None) -> BuiltFolder:
        """A folder by path, or a Hub repo by id (read through ``datasets.load_dataset`` at once)."""
        source = str(source)
        path = Path(source)
        if path.is_dir():
            files = split_files(path)
            if not files:
                raise UsageError(
                    f"{source!r} holds no CONFIG/SPLIT-*.parquet shards; build one with `warp-cuda-ir build`"
                )
            if config:
                if config not in files:
                    raise UsageError(f"config {config!r} not in {source!r}; present: {', '.join(files)}")
                files = {config: files[config]}
            return cls(source, path, config, files)
        if path.exists() or not is_repo_id(source):
            raise UsageError(f"{source!r} is neither a dataset folder nor a Hub repo id (ORG/NAME)")
        return cls._from_repo(source, config)

    @classmethod
    def _from_repo(cls, repo_id: str, config: str | None) -> BuiltFolder:
        import datasets

        try:
            names = [config] if config else datasets.get_dataset_config_names(repo_id)
            tables = {}
            for cfg in names:
                dd = datasets.load_dataset(repo_id, cfg)
                tables[cfg] = {s: dd[s].data.table for s in SPLITS if s in dd}
        except Exception as exc:  # noqa: BLE001 - any load failure is a usage problem for this tool
            detail = str(exc).splitlines()[0][:200] if str(exc) else ""
            raise UsageError(f"cannot load {repo_id!r}: {type(exc).__name__}: {detail}") from exc
        folder = cls(repo_id, None, config, {})
        folder._tables = tables
        return folder

    @property
    def configs(self) -> list[str]:
        """The configs present, the default config first (``split_files``' order)."""
        return list(self.files) if self.path is not None else list(self.tables)

    @property
    def card(self) -> Path | None:
        return None if self.path is None else self.path / CARD

    @cached_property
    def manifest_doc(self) -> dict:
        """``manifest.json`` as the build wrote it ({} without one, or for a Hub repo)."""
        if self.path is None or not (self.path / MANIFEST).is_file():
            return {}
        try:
            doc = json.loads((self.path / MANIFEST).read_text())
        except ValueError:
            return {}  # the shards check reports an unreadable manifest (``manifest``)
        return doc if isinstance(doc, dict) else {}

    @cached_property
    def manifest(self) -> dict[str, ManifestEntry] | None:
        """The Parquet shards ``manifest.json`` lists, by relative path (None without one); raises ``ValueError``
        for a manifest that does not parse."""
        return None if self.path is None else read_manifest(self.path)

    @property
    def options(self) -> dict:
        """The build options the manifest records ({} without one)."""
        return self.manifest_doc.get("options", {})

    @property
    def tables(self) -> dict[str, dict[str, pa.Table]]:
        """``{config: {split: table}}``, every shard read once (on first use)."""
        if self._tables is None:
            self._tables = {}
            for cfg, splits in self.files.items():
                self._tables[cfg] = {}
                for split, paths in splits.items():
                    parts = [self._read(p) for p in paths]
                    try:
                        self._tables[cfg][split] = pa.concat_tables(parts, promote_options="default")
                    except (pa.ArrowInvalid, TypeError):
                        self._tables[cfg][split] = parts[0]
                    self.mismatched.setdefault(cfg, []).extend(
                        f"{cfg}/{p.name}" for p, t in zip(paths, parts) if not matches_features(t.schema, cfg)
                    )
        return self._tables

    def read(self, config: str, columns: list[str], splits: tuple[str, ...] | None = None) -> pa.Table:
        """The ``columns`` of ``config`` it has (a cpu shard has no PTX), over ``splits`` (None: all) in split order:
        from the tables when they were read, else from the shards alone (the card reads a few columns of many
        shards)."""
        present = self.files.get(config) or (self._tables or {}).get(config, {})
        wanted = [s for s in present if splits is None or s in splits]
        if self._tables is not None:
            parts = [self._tables[config][s] for s in wanted]
            return pa.concat_tables([t.select([c for c in columns if c in t.column_names]) for t in parts])
        parts = []
        for s in wanted:
            for f in self.files[config][s]:
                names = pq.read_schema(f).names
                parts.append(self._read(f, [c for c in columns if c in names]))
        return pa.concat_tables(parts)

    def first_row(self, config: str, split: str, columns: list[str]) -> dict | None:
        """The first row of a split's first shard (the card's examples); None when that shard holds none."""
        rows = self._read(self.files[config][split][0], columns).slice(0, 1).to_pylist()
        return rows[0] if rows else None

    def _read(self, path: Path, columns: list[str] | None = None) -> pa.Table:
        try:
            return pq.read_table(path, columns=columns)
        except (pa.ArrowException, OSError) as exc:
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            repair = repair_command(str(self.path), ours(self.manifest_doc))
            raise CorruptShard(str(self.path), path.relative_to(self.path).as_posix(), reason, repair) from exc
