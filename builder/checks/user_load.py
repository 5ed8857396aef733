"""The user's path: every config of the folder loaded with ``datasets.load_dataset``, as a user loads it.

The other checks read the Parquet files with pyarrow, which reads files ``datasets`` refuses (a 0-row shard made
``load_dataset(folder, "real")`` raise ``ArrowInvalid: BatchSize must be greater than 0`` while validate said
OK). So this check asks ``datasets`` itself: for every config, each split in memory and its first row streamed,
in one child process for the whole folder (``user_load_child``) with a private, temporary cache and the Hub
offline, so the user's cache is neither read nor written and nothing ``datasets`` keeps in memory leaks into
the validator. A config that fails is loaded again shard by shard, to name the files ``datasets`` cannot read;
the rows it loads must be the rows the shards' Parquet metadata counts.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from builder.checks.base import MAX_OFFENDERS, Check, Context, Result
from builder.configs import CONFIGS

NAME = "datasets_load"
TIMEOUT = 1800  # seconds for the whole folder; the default build's three configs load in well under a minute


class UserLoad(Check):
    name = NAME

    def run(self, context: Context) -> Result:
        """The folder's tables are the shards as pyarrow read them: their row counts are the Parquet metadata's."""
        folder = context.folder
        if folder is None or folder.path is None:
            return Result(self.name, "", "skip", "Hub repo: every config was read with load_dataset above")
        tables = folder.tables
        configs = [folder.config] if folder.config else [c for c in tables if c in CONFIGS]  # others: config_name
        with tempfile.TemporaryDirectory(prefix="warp_cuda_ir_load_") as tmp:
            records = Path(tmp) / "records.jsonl"
            try:
                proc = _run_child(folder.path.resolve(), records, configs, Path(tmp) / "cache")
            except subprocess.TimeoutExpired:
                return Result(self.name, "", "fail", f"datasets did not load the folder within {TIMEOUT} s")
            got = [json.loads(line) for line in records.read_text().splitlines()] if records.is_file() else []
        if proc.returncode != 0:
            last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
            after = f" after {got[-1]['config']}/{got[-1]['split']}" if got else ""
            return Result(self.name, "", "fail", f"the loading child failed (exit {proc.returncode}){after}: {last}")
        expected = {cfg: {s: t.num_rows for s, t in tables.get(cfg, {}).items()} for cfg in configs}
        return _judge(got, expected)


def _run_child(folder: Path, records: Path, configs: list[str], cache: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "HF_HOME": str(cache), "HF_DATASETS_CACHE": str(cache / "datasets")}
    env |= {"HF_HUB_CACHE": str(cache / "hub"), "HF_MODULES_CACHE": str(cache / "modules")}
    env |= {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "HF_DATASETS_DISABLE_PROGRESS_BARS": "1"}
    # the child imports the builder from where this process did (scripts/validate.py run by path too)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(Path(__file__).parents[2]), env.get("PYTHONPATH")]))
    argv = [sys.executable, "-m", "builder.checks.user_load_child", str(folder), str(records), *configs]
    return subprocess.run(argv, capture_output=True, text=True, env=env, timeout=TIMEOUT)


def _judge(records: list[dict], expected: dict[str, dict[str, int]]) -> Result:
    """Fail on every error, every split whose rows differ from the shards' and every split ``datasets`` misses."""
    problems, offenders, loaded = [], [], 0
    for r in records:
        where = f"{r['config']}/{r['split']}"
        shards = expected.get(r["config"], {}).get(r["split"])
        if r.get("error"):
            problems.append(f"{r.get('file') or where}: {r['error']}")
            offenders.append(r.get("file") or where)
        elif shards is not None and r["rows"] != shards:
            problems.append(f"{where}: datasets loads {r['rows']} rows, the shards' Parquet metadata {shards}")
            offenders.append(where)
        else:
            loaded += 1
    seen = {(r["config"], r["split"]) for r in records}
    failed = {r["config"] for r in records if r.get("error")}
    for cfg, splits in expected.items():  # a config that failed has no per-split record to miss
        missing = [s for s in splits if cfg not in failed and (cfg, s) not in seen]
        problems += [f"{cfg}/{s}: datasets loads no such split; the shards hold {splits[s]} rows" for s in missing]
        offenders += [f"{cfg}/{s}" for s in missing]
    if problems:
        message = f"datasets cannot load the folder as a user does ({len(problems)}): " + "; ".join(problems[:3])
        return Result(NAME, "", "fail", message, len(problems), offenders[:MAX_OFFENDERS])
    rows = sum(r["rows"] for r in records)  # no record has an error here
    message = f"datasets loads all {loaded} splits ({rows} rows) in memory, and streams each one's first row"
    return Result(NAME, "", "pass", message, loaded)
