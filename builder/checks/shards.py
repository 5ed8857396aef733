"""Every shard the folder says it has is there, by name: the card's data_files, the ``-of-NNNNN`` in the shard
names, and ``manifest.json`` (with each shard's rows and sha256) when the build wrote one."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow.parquet as pq
import yaml

from builder.checks.base import MAX_OFFENDERS, Check, Context, Result
from builder.folder_format import MANIFEST, missing_shards, sha256_file

if TYPE_CHECKING:
    from builder.built_folder import BuiltFolder

GLOB_CHARS = set("*?[")


def card_data_files(folder: Path) -> dict[str, list[str]]:
    """``{config: [path or glob, ...]}`` from the card's YAML; empty when there is no card or it does not parse
    (the card check reports that)."""
    readme = folder / "README.md"
    try:
        front = readme.read_text().split("---\n")[1] if readme.is_file() else ""
        meta = yaml.safe_load(front) or {}
    except (IndexError, yaml.YAMLError, OSError):
        return {}
    out: dict[str, list[str]] = {}
    for entry in meta.get("configs", []) if isinstance(meta, dict) else []:
        files = entry.get("data_files", []) if isinstance(entry, dict) else []
        for item in files if isinstance(files, list) else []:
            paths = item.get("path", []) if isinstance(item, dict) else item
            out.setdefault(entry.get("config_name", "default"), []).extend([paths] if isinstance(paths, str) else paths)
    return out


class Shards(Check):
    """Run on a folder, not a Hub repo (``datasets`` read the repo's files already). A folder validated for one
    config (``--config``) is checked for that config's shards alone."""

    name = "shards"

    def applies(self, context: Context) -> bool:
        return context.folder is not None and context.folder.path is not None

    def run(self, context: Context) -> Result:
        folder = context.folder
        root = folder.path

        def wanted(path: str) -> bool:
            return folder.config is None or path.split("/", 1)[0] == folder.config

        missing: list[str] = []
        for cfg, splits in folder.files.items():
            for split, files in splits.items():
                missing += [m for m in missing_shards(cfg, split, files) if wanted(m)]
        for paths in card_data_files(root).values():
            for path in paths:
                if not wanted(path):
                    continue
                if GLOB_CHARS & set(path):
                    if not any(root.glob(path)):
                        missing.append(path)
                elif not (root / path).is_file():
                    missing.append(path)
        problems = [f"missing: {', '.join(sorted(set(missing)))}"] if missing else []
        manifest_problems, offenders = _manifest(folder, wanted)
        problems += manifest_problems
        offenders = sorted(set(missing)) + [o for o in offenders if o not in set(missing)]
        if problems:
            message = "; ".join(problems)
            if len(message) > 400:
                message = message[:400] + "..."
            return Result(self.name, "", "fail", message, len(offenders), offenders[:MAX_OFFENDERS])
        n = sum(len(fs) for splits in folder.files.values() for fs in splits.values())
        source = (
            "manifest.json, the card and the shard names"
            if (root / MANIFEST).is_file()
            else "the card and the shard names"
        )
        return Result(self.name, "", "pass", f"{n} shards; every shard {source} list is there")


def _manifest(folder: BuiltFolder, wanted: Callable[[str], bool]) -> tuple[list[str], list[str]]:
    """Problems with the shards against manifest.json, and the shards named by them."""
    try:
        manifest = folder.manifest
    except ValueError as exc:
        return [str(exc)], []
    if manifest is None:
        return [], []
    entries = {p: e for p, e in manifest.items() if wanted(p)}
    on_disk = {
        f.relative_to(folder.path).as_posix() for splits in folder.files.values() for fs in splits.values() for f in fs
    }
    problems = []
    absent = sorted(p for p in entries if p not in on_disk)
    if absent:
        problems.append(f"{MANIFEST} lists shards that are not there: {', '.join(absent)}")
    unlisted = sorted(p for p in on_disk if p not in entries and wanted(p))
    if unlisted:
        problems.append(f"shards not in {MANIFEST}: {', '.join(unlisted)}")
    changed = []
    for rel, entry in sorted(entries.items()):
        if rel not in on_disk:
            continue
        path = folder.path / rel
        if entry.sha256 and sha256_file(path) != entry.sha256:
            changed.append(f"{rel} (sha256)")
        elif entry.rows is not None and pq.ParquetFile(path).metadata.num_rows != entry.rows:
            changed.append(f"{rel} (rows)")
    if changed:
        problems.append(f"shards that differ from {MANIFEST}: {', '.join(changed)}")
    return problems, absent + unlisted + [c.split(" ")[0] for c in changed]
