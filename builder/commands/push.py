"""``warp-cuda-ir push``: validate a built folder, render its card, and upload it as a Hub dataset repo.

A folder that fails validation is never pushed; a folder that is not there is never built here (the message
says how to build it). Exit status by step: 2 bad arguments or no folder, 4 invalid folder, 5 no token,
6 network, 7 the Hub rejected the upload; one line on stderr each.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from builder.checks.fidelity import FIDELITY_SAMPLE
from builder.errors import PushError

NAME = "push"
HELP = "validate a built folder and upload it to the Hugging Face Hub (--dry-run: list the upload)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--repo-id", required=True, help="ORG/NAME of the dataset repo")
    p.add_argument("--folder", default="warp_cuda_ir", help="the built folder (default warp_cuda_ir)")
    p.add_argument("--private", action="store_true")
    p.add_argument("--revision", default=None, help="branch to push to (default: main)")
    p.add_argument("--create-pr", action="store_true", help="open a pull request instead of committing")
    p.add_argument("--dry-run", action="store_true", help="validate and list the upload; no network calls")
    p.add_argument(
        "--fidelity-sample",
        "--determinism-sample",  # its name before validate regenerated every row
        dest="fidelity_sample",
        type=int,
        default=FIDELITY_SAMPLE,
        help=f"rows validate puts through Warp's public pipeline (default {FIDELITY_SAMPLE}; 0 skips)",
    )


def run(args: argparse.Namespace) -> int:
    from builder.hub import push

    try:
        push(
            args.repo_id,
            Path(args.folder),
            private=args.private,
            revision=args.revision,
            create_pr=args.create_pr,
            dry_run=args.dry_run,
            fidelity_sample=args.fidelity_sample,
        )
    except PushError as exc:
        print(f"warp-cuda-ir push: error: {exc}", file=sys.stderr)
        return exc.code
    return 0
