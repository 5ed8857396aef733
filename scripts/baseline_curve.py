"""The training curve of a `warp-cuda-ir train` run: loss, held-out loss and the evaluator's scores by checkpoint.

    python scripts/baseline_curve.py RUN --data FOLDER [--config cpu] [--split test] [--limit 40]
                                     [--max-new-tokens 0] [--batch-size 20] [--num-proc 1]
                                     [--real-data REAL_FOLDER] [--floor NAME=REPORT ...] [--out docs/baseline_curve]
                                     [--loss-only]

For each checkpoint of RUN it writes greedy predictions for the first --limit rows of the split
(`warp-cuda-ir predict`), scores them (`warp-cuda-ir evaluate`) and measures the teacher-forced loss on the
same rows (and, with --real-data, on the real rows of the trained target and pass) with
`builder.train.heldout.score` (nats per byte and per token of ir, whole rows only), then writes OUT.json (the
log and the scores by step) and OUT.png (training and held-out loss per token; held-out loss per byte; exact
match, compiled and functional rates against steps). Predictions and reports go to a temporary folder that
is removed at the end. A checkpoint OUT.json already holds scores for, measured with the same options, is not
scored again: run it while a run trains and each call scores only the checkpoints written since the last.
``--floor NAME=REPORT`` draws a floor's compiled rate on the same rows (from the ``evaluate`` report of, say,
``retrieval_rename`` predictions) as a line on the rates' panel. ``--loss-only`` measures the held-out losses
alone (no predictions, no sandbox): the curve of a run whose checkpoints are scored where evaluate cannot run or
would take too long, its last checkpoint predicted and evaluated apart.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from builder.cli import OneLineParser
from builder.cli import main as cli
from builder.train import checkpoint, curve
from builder.train.curve import earlier, floor_rates, plot, scored_ids, scoring


def score(ckpt: Path, args: argparse.Namespace, tmp: Path) -> dict:
    step = checkpoint.read_info(ckpt)["step"]
    out = {"step": step} if args.loss_only else {"step": step, **_evaluated(ckpt, args, tmp)}
    return out | curve.held_out(ckpt, args.data, args.config, args.split, args.limit, args.real_data)


def _evaluated(ckpt: Path, args: argparse.Namespace, tmp: Path) -> dict:
    """The evaluator's scores of the checkpoint's greedy predictions for the first --limit rows."""
    pred, report = tmp / f"{ckpt.name}.jsonl", tmp / f"{ckpt.name}.json"
    where = ["--data", args.data, "--config", args.config, "--split", args.split]
    decode = ["--limit", str(args.limit), "--max-new-tokens", str(args.max_new_tokens), "--threads", "1"]
    decode += ["--batch-size", str(args.batch_size)]
    if cli(["predict", "--checkpoint", str(ckpt), *where, "--out", str(pred), *decode]) != 0:
        raise SystemExit(f"predict failed for {ckpt}")
    if cli(["evaluate", *where, "--predictions", str(pred), "--out", str(report), "--num-proc", str(args.num_proc)]):
        raise SystemExit(f"evaluate failed for {ckpt}")
    rep = json.loads(report.read_text())
    keys = ("rows", "predictions", "exact_match", "compiled", "functional", "failures")
    return {k: rep[k] for k in keys}


def main(argv: list[str] | None = None) -> int:
    p = OneLineParser(prog="baseline_curve", description=__doc__.splitlines()[0])
    p.add_argument("run")
    p.add_argument("--data", required=True)
    p.add_argument("--config", default="cpu")
    p.add_argument("--split", default="test")
    p.add_argument("--limit", type=int, default=40)
    p.add_argument("--max-new-tokens", type=int, default=0, help="0: the longest reference's tokens + 1")
    p.add_argument("--batch-size", type=int, default=20, help="rows decoded together")
    p.add_argument("--num-proc", type=int, default=1, help="evaluate's child processes")
    p.add_argument("--real-data", default="", help="a built `real` folder: add its held-out loss to the curve")
    p.add_argument("--out", default="docs/baseline_curve")
    p.add_argument("--loss-only", action="store_true", help="held-out losses only: no predictions, no evaluate")
    p.add_argument(
        "--floor",
        action="append",
        default=[],
        metavar="NAME=REPORT",
        help="an evaluate report of a floor's predictions (e.g. retrieval_rename): its compiled rate on the scored "
        "rows is drawn as a line (repeatable)",
    )
    args = p.parse_args(argv)
    try:  # a floor given wrong fails now, not after every checkpoint is scored
        floor_rates(args.floor)
    except (OSError, ValueError, KeyError) as e:
        p.error(f"--floor: {e}")
    run = Path(args.run)
    if not checkpoint.folders(run):
        print(f"baseline_curve: error: {args.run!r} has no checkpoints", file=sys.stderr)
        return 2
    out = Path(args.out)
    done = earlier(out, args)
    with tempfile.TemporaryDirectory(prefix="baseline_curve_") as tmp:
        scores = [
            done.get(checkpoint.read_info(ckpt)["step"]) or score(ckpt, args, Path(tmp))
            for ckpt in checkpoint.folders(run)
        ]
    log = checkpoint.read_log(run)
    record = {"scoring": scoring(args), "log": log, "scores": scores}
    out.with_suffix(".json").write_text(json.dumps(record, indent=1) + "\n")
    plot(log, scores, out.with_suffix(".png"), floor_rates(args.floor, scored_ids(args)) if args.floor else None)
    print(f"wrote {out.with_suffix('.json')} and {out.with_suffix('.png')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
