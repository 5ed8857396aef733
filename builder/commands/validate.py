"""``warp-cuda-ir validate``: check a built folder (or a Hub repo) before publishing it.

Every check reports counts and the first few offending ids; exit 0 when all pass, 1 when one fails or a shard
is unreadable, 2 (one line on stderr) for bad arguments.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from builder.checks.fidelity import FIDELITY_SAMPLE
from builder.errors import CorruptShard, UsageError

NAME = "validate"
HELP = "check a built folder or Hub repo: schema, ids, duplicates, evidence, regeneration, card"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("source", help="dataset folder or Hub repo id (ORG/NAME)")
    p.add_argument("--config", default=None, help="validate only this config")
    p.add_argument("--json", default=None, help="write the full report here")
    p.add_argument(
        "--fidelity-sample",
        "--determinism-sample",  # its name before every row was regenerated; kept so scripts keep working
        dest="fidelity_sample",
        type=int,
        default=FIDELITY_SAMPLE,
        help=f"rows put through Warp's public pipeline and compared with it (default {FIDELITY_SAMPLE}; 0 skips)."
        " Every generated row is regenerated whatever this is",
    )
    p.add_argument("--seed-for-sampling", type=int, default=0, help="which rows are regenerated")


def run(args: argparse.Namespace) -> int:
    from builder.validate import validate

    os.environ.setdefault("HF_DATASETS_OFFLINE", os.environ.get("HF_HUB_OFFLINE", "0"))
    try:
        report = validate(args.source, args.config, args.fidelity_sample, args.seed_for_sampling, progress=True)
    except UsageError as exc:
        print(f"warp-cuda-ir validate: error: {exc}", file=sys.stderr)
        return 2
    except CorruptShard as exc:
        print(f"warp-cuda-ir validate: error: {exc}", file=sys.stderr)
        return 1
    print(report.summary())
    if args.json:
        out = Path(args.json)
        tmp = out.with_name(f".{out.name}.tmp")
        tmp.write_text(json.dumps(report.to_dict(), indent=2))
        os.replace(tmp, out)  # an interrupted run leaves the previous report, not half of one
    return 0 if report.ok else 1
