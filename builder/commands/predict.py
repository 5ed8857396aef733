"""``warp-cuda-ir predict``: write a trained checkpoint's predictions for a split as the evaluator's JSONL."""

from __future__ import annotations

import argparse

from builder.commands.train import _import_or_exit, _set_threads
from builder.configs import ir_spec, names
from builder.schema import SPLITS

NAME = "predict"
HELP = "decode a checkpoint's predictions for a split (greedy or sampled) into PRED.jsonl for `evaluate`"
EPILOG = (
    "Prompts are built and truncated as in training: a source longer than the run's --max-prompt tokens keeps "
    "its last tokens (the @wp.kernel comes last, after its helpers). A completion stops at the end-of-text "
    "token, at --max-new-tokens (default: the longest reference among the rows predicted, in tokens, plus the "
    "end-of-text token), or at the run's --max-length, whichever comes first. Rows are taken in stored "
    "order; for `real`, whose rows mix targets and passes, only those the model was trained for."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.epilog = EPILOG
    p.add_argument("--checkpoint", required=True, help="a run folder (its newest checkpoint) or a checkpoint folder")
    p.add_argument("--data", required=True, help="dataset folder (built by `build`) or Hub id")
    p.add_argument("--config", required=True, help=", ".join(names(ir=True)))
    p.add_argument("--split", required=True, help=", ".join(SPLITS))
    p.add_argument("--out", required=True, help='PRED.jsonl to write: {"id": ROW_ID, "ir": FUNCTION} a line')
    p.add_argument("--limit", type=int, default=0, help="predict the first N rows of the split (default 0: all)")
    p.add_argument("--samples", type=int, default=1, help="samples per row, for pass@k (default 1)")
    p.add_argument("--temperature", type=float, default=0.0, help="0: greedy (default); > 0: sampled")
    p.add_argument("--top-p", type=float, default=1.0, help="nucleus sampling mass (default 1.0)")
    cap = "cap on a completion (default 0: the longest reference's tokens + 1)"
    p.add_argument("--max-new-tokens", type=int, default=0, help=cap)
    p.add_argument("--batch-size", type=int, default=8, help="rows decoded together (default 8)")
    p.add_argument("--seed", type=int, default=0, help="sampling seed (default 0)")
    p.add_argument("--all-targets", action="store_true", help="real: every row, not only the trained target/pass")
    p.add_argument("--threads", type=int, default=0, help="torch CPU threads (0: torch's default)")


def run(args: argparse.Namespace) -> int:
    ir_spec(args.config)
    predict = _import_or_exit("builder.train.predict")
    opts = predict.DecodeOptions(
        samples=args.samples,
        temperature=args.temperature,
        top_p=args.top_p,
        max_new_tokens=args.max_new_tokens,
        batch_size=args.batch_size,
        limit=args.limit,
        seed=args.seed,
        all_targets=args.all_targets,
    )
    _set_threads(args.threads)
    lines = predict.write(args.checkpoint, args.data, args.config, args.split, args.out, opts, print)
    print(f"wrote {lines} predictions to {args.out}")
    return 0
