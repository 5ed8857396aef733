"""The user's path: every config of the folder loaded with ``datasets.load_dataset``, as a user loads it.

The other checks read the Parquet files with pyarrow, which reads files ``datasets`` refuses (a 0-row shard made
``load_dataset(folder, "real")`` raise ``ArrowInvalid: BatchSize must be greater than 0`` while validate said
OK). So this check asks ``datasets`` itself: for every config, each split in memory and its first row streamed,
in a child process (``child``) with a private, temporary cache and the Hub
offline, so the user's cache is neither read nor written and nothing ``datasets`` keeps in memory leaks into
the validator. A config that fails is loaded again shard by shard, to name the file ``datasets`` cannot read.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pyarrow as pa

from builder.checks.base import MAX_OFFENDERS, Result
from builder.schema import CONFIGS

NAME = "datasets_load"
TIMEOUT = 1800  # seconds for the whole folder; the default build's three configs load in well under a minute


class UserLoad:
    name = NAME

    def __init__(self, folder: Path, config: str | None):
        self.folder, self.config = Path(folder).resolve(), config

    def run(self, tables: dict[str, dict[str, pa.Table]]) -> Result:
        configs = [self.config] if self.config else [c for c in tables if c in CONFIGS]  # others: config_name
        with tempfile.TemporaryDirectory(prefix="warp_cuda_ir_load_") as cache:
            env = {**os.environ, "HF_HOME": cache, "HF_DATASETS_CACHE": str(Path(cache) / "datasets")}
            env |= {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
            # the child imports the builder from where this process did (scripts/validate.py run by path too)
            env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(Path(__file__).parents[2]), env.get("PYTHONPATH")]))
            child = "import sys; from builder.validate.user_load import child; child(sys.argv[1:])"
            argv = [sys.executable, "-c", child, str(self.folder), *configs]
            try:
                proc = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=TIMEOUT)
            except subprocess.TimeoutExpired:
                return Result(self.name, "", "fail", f"datasets did not load the folder within {TIMEOUT} s")
        if proc.returncode != 0:
            last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
            return Result(self.name, "", "fail", f"the loading child failed (exit {proc.returncode}): {last}")
        problems, loaded = [], 0
        for line in proc.stdout.splitlines():
            if not line.startswith("{"):
                continue  # a library's own print, not a record
            got = json.loads(line)
            where = f"{got['config']}/{got['split']}"
            expected = tables.get(got["config"], {}).get(got["split"])
            if got.get("error"):
                problems.append(f"{got.get('file') or where}: {got['error']}")
            elif expected is not None and got["rows"] != expected.num_rows:
                problems.append(f"{where}: datasets loads {got['rows']} rows, the shards hold {expected.num_rows}")
            else:
                loaded += 1
        if problems:
            message = f"datasets.load_dataset fails on {len(problems)} split(s): " + "; ".join(problems[:3])
            return Result(self.name, "", "fail", message, len(problems), problems[:MAX_OFFENDERS])
        return Result(self.name, "", "pass", f"datasets loads all {loaded} splits, in memory and streamed", loaded)


def _one(error: BaseException) -> str:
    """The root cause in one line (``datasets`` wraps what Arrow raised in a ``DatasetGenerationError``)."""
    while error.__cause__ is not None or error.__context__ is not None:
        error = error.__cause__ or error.__context__
    text = str(error).strip()
    return f"{type(error).__name__}: {text.splitlines()[0] if text else ''}"[:300]


def _bad_file(folder: Path, config: str) -> str | None:
    """The first shard of ``config`` that ``datasets`` cannot load on its own."""
    import datasets

    for shard in sorted((folder / config).glob("*.parquet")):
        try:
            datasets.load_dataset("parquet", data_files=[str(shard)], split="train")
        except Exception:  # noqa: BLE001 - any exception: this file is the one
            return shard.relative_to(folder).as_posix()
    return None


def _load_config(folder: Path, config: str) -> list[dict]:
    """One record per split: rows loaded in memory and whether its first row streams, or the error."""
    import datasets

    try:  # in memory, as a user loads a config: every split is prepared together
        loaded = datasets.load_dataset(str(folder), config)
    except Exception as exc:  # noqa: BLE001 - any exception is what a user would see
        return [{"config": config, "split": "*", "file": _bad_file(folder, config), "error": _one(exc)}]
    out = []
    for split, ds in loaded.items():
        record = {"config": config, "split": split, "rows": ds.num_rows}
        try:
            next(iter(datasets.load_dataset(str(folder), config, split=split, streaming=True)))
        except Exception as exc:  # noqa: BLE001
            record |= {"file": _bad_file(folder, config), "error": "streamed: " + _one(exc)}
        out.append(record)
    return out


def child(argv: list[str]) -> None:
    """The child's work: a JSON line a split for the folder ``argv[0]`` and the configs after it."""
    import datasets

    folder, configs = Path(argv[0]), argv[1:]
    datasets.disable_progress_bars()
    for config in configs:
        for record in _load_config(folder, config):
            print(json.dumps(record), flush=True)
    sys.stdout.flush()
    # no interpreter teardown: a streaming reader's native threads can abort it (std::terminate) after the work
    os._exit(0)
