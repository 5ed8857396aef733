"""What the ``datasets_load`` check runs in its child process: every config of a folder loaded with ``datasets``
as a user loads it, each split in memory and its first row streamed.

``python -m builder.checks.user_load_child FOLDER RECORDS CONFIG...`` appends one JSON record per split (or per
shard ``datasets`` cannot read) to the file ``RECORDS``; the parent (``user_load``) gives it a private cache and the
Hub offline, and judges the records. Records go to a file, not stdout, so a library's own prints cannot be taken
for one and the records written before a crash survive it.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from builder.folder_format import split_files

_NOTHING = object()  # what ``next`` returns for a split that streams no row


def root_cause(error: BaseException) -> str:
    """The root cause in one line (``datasets`` wraps what Arrow raised in a ``DatasetGenerationError``)."""
    while error.__cause__ is not None or error.__context__ is not None:
        error = error.__cause__ or error.__context__
    text = str(error).strip()
    return f"{type(error).__name__}: {text.splitlines()[0] if text else ''}"[:300]


def refused_shards(folder: Path, config: str, splits: list[str], streaming: bool) -> list[dict]:
    """A record for each shard of ``splits`` that ``datasets`` cannot load on its own: the whole config's error
    does not say which file it came from, and a user needs the file."""
    import datasets

    out, shards = [], split_files(folder).get(config, {})
    for split in splits:
        for shard in shards.get(split, []):
            try:
                alone = datasets.load_dataset("parquet", data_files=[str(shard)], split="train", streaming=streaming)
                if streaming:
                    next(iter(alone), None)
            except Exception as exc:  # noqa: BLE001 - any exception: this file is one datasets refuses
                out.append({"split": split, "file": shard.relative_to(folder).as_posix(), "error": root_cause(exc)})
    return out


def load_config(folder: Path, config: str) -> list[dict]:
    """One record per split: rows loaded in memory and whether its first row streams; or the errors, by file."""
    import datasets

    splits = list(split_files(folder).get(config, {}))
    try:  # in memory, as a user loads a config: every split is prepared together
        loaded = datasets.load_dataset(str(folder), config)
    except Exception as exc:  # noqa: BLE001 - any exception is what a user would see
        refused = refused_shards(folder, config, splits, streaming=False)
        return refused or [{"split": "*", "error": root_cause(exc)}]  # no shard fails alone: their union does
    out = []
    for split, ds in loaded.items():
        record = {"split": split, "rows": ds.num_rows}
        try:
            rows = iter(datasets.load_dataset(str(folder), config, split=split, streaming=True))
            first = next(rows, _NOTHING)
            rows.close()  # not left open until the interpreter exits, with its reader mid-stream
            if first is _NOTHING and ds.num_rows:
                record["error"] = f"streamed: no row, in memory {ds.num_rows}"
        except Exception as exc:  # noqa: BLE001
            refused = refused_shards(folder, config, [split], streaming=True)
            record["error"] = "streamed: " + (refused[0]["error"] if refused else root_cause(exc))
            record["file"] = refused[0]["file"] if refused else None
        out.append(record)
    return out


def main(argv: list[str]) -> None:
    import datasets

    folder, records, configs = Path(argv[0]), Path(argv[1]), argv[2:]
    datasets.disable_progress_bars()
    with records.open("a") as out:
        for config in configs:
            for record in load_config(folder, config):
                out.write(json.dumps({"config": config, **record}) + "\n")
                out.flush()
    sys.stdout.flush()
    sys.stderr.flush()
    # no interpreter teardown: a streaming reader's native threads can abort it (std::terminate) after the work
    os._exit(0)


if __name__ == "__main__":
    main(sys.argv[1:])
