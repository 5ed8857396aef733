"""Shard names as a reader sees them: no empty file, and ``-of-nnnnn`` counting the files that are there.

A shard's rows are known only once it is built (a shipped module may hold no kernel Warp can emit, a shard of
``cuda-backward`` may hold only kernels without an adjoint), and a 0-row Parquet file is one ``datasets`` cannot
read. So a shard that yields no row of a config writes no file for it (its record lists the file with ``rows`` 0
and no hash), and once every shard is done the files of each config and split are renamed in plan order to
``SPLIT-jjjjj-of-mmmmm`` over the ``m`` files that hold rows: the card's YAML, ``manifest.json`` and the names
agree, and a split without a single row has no file.

Planned names (``-of-`` the planned count) and final names (``-of-`` the count of files with rows) differ in that
count whenever a file was dropped, so a rename never lands on a file still waiting for its own. The manifest keeps
each renamed file's planned name (``planned``) and the planned names of dropped files (``empty``), so ``--resume``
on a finished folder still finds every shard's files.
"""

from __future__ import annotations

from builder.folder_format import shard_name


def is_empty(entry: dict) -> bool:
    """A file entry of a shard record that stands for no file: the shard yielded no row of that config."""
    return entry["rows"] == 0 and entry["sha256"] is None


def planned(entry: dict) -> str:
    return entry.get("planned", entry["path"])


def renumber(store, records: list[dict]) -> list[dict]:
    """Records (in plan order) whose file entries name the final paths; files are moved there in ``store``."""
    groups: dict[tuple[str, str], list[dict]] = {}
    for r in records:
        for f in r["files"]:
            if not is_empty(f):
                groups.setdefault((planned(f).split("/")[0], r["split"]), []).append(f)
    final: dict[str, str] = {}
    for (config, split), entries in groups.items():
        for j, f in enumerate(entries):
            final[planned(f)] = f"{config}/{shard_name(split, j, len(entries))}"
    out = []
    for r in records:
        files = []
        for f in r["files"]:
            if is_empty(f):
                files.append({"path": planned(f), "rows": 0, "sha256": None})
                continue
            to = final[planned(f)]
            if f["path"] != to:
                store.move(f["path"], to)
            entry = {"path": to, "rows": f["rows"], "sha256": f["sha256"]}
            files.append(entry | ({"planned": planned(f)} if planned(f) != to else {}))
        out.append({**r, "files": files})
    return out
