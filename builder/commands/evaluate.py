"""``warp-cuda-ir evaluate``: score a model's predicted functions by compiling and running them."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from builder.configs import ir_spec, names
from builder.errors import ConfigError
from builder.evaluate.trials import DEFAULT as DEFAULT_TRIALS
from builder.evaluate.trials import check_count
from builder.schema import SPLITS

NAME = "evaluate"
HELP = "score predictions (PRED.jsonl) against a split: exact match, compiles, same outputs"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--data", required=True, help="dataset folder (built by `build`) or Hub id")
    p.add_argument("--config", required=True, help=", ".join(names(ir=True)))
    p.add_argument("--split", default="test", help=f"{', '.join(SPLITS)} (default test)")
    p.add_argument(
        "--predictions", required=True, help='JSONL: {"id": ROW_ID, "ir": FUNCTION} or {"id": ROW_ID, "python": MODULE}'
    )
    p.add_argument("--out", required=True, help="REPORT.json (written atomically)")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds per child (compile + run; default 60)")
    p.add_argument("--num-proc", type=int, default=1, help="children run in parallel")
    p.add_argument(
        "--trials",
        type=int,
        default=DEFAULT_TRIALS,
        help=f"input trials every prediction must match (the row's own inputs, fresh seeded ones, a smaller launch; "
        f"default {DEFAULT_TRIALS})",
    )
    p.add_argument(
        "--unsafe-no-isolation",
        action="store_true",
        help="run predictions without the bubblewrap sandbox (only for predictions you trust)",
    )


def _check_isolation() -> None:
    from builder.errors import SandboxUnavailable
    from builder.evaluate import isolation

    try:
        isolation.check()
    except SandboxUnavailable as exc:
        raise ConfigError(f"cannot isolate predictions ({exc}); pass --unsafe-no-isolation to run anyway") from None


def run(args: argparse.Namespace) -> int:
    from builder import GENERATOR_VERSION
    from builder.evaluate import data, predictions, preprocess, sandbox, scores
    from builder.evaluate.functional import Evaluator

    if args.num_proc < 1:
        raise ConfigError(f"--num-proc must be a positive integer, got {args.num_proc}")
    if args.split not in SPLITS:
        raise ConfigError(f"unknown split {args.split!r}; valid: {', '.join(SPLITS)}")
    ir_spec(args.config)  # ConfigError naming the configs whose rows hold an ir (not standalone, not repair)
    check_count(args.trials)
    limits = sandbox.Limits(timeout_s=args.timeout, isolate=not args.unsafe_no_isolation)
    preprocess.compiler()  # the static checks need g++: say so before any work
    if limits.isolate:
        _check_isolation()
    preds = predictions.read(Path(args.predictions))
    rows = {r["id"]: r for r in data.load_rows(args.data, args.config, args.split)}
    predictions.check_ids(preds, set(rows), args.split)
    used = {p.id: rows[p.id] for p in preds}
    data.check_generator(list(used.values()), GENERATOR_VERSION)
    gpu = False
    if any(r["target"] == "cuda" for r in used.values()):
        from builder.warp_backend import codegen

        codegen.init_quietly()  # Warp's no-driver warning: the report already says when CUDA rows ran on no GPU
        gpu = codegen.cuda_available()
    evaluator = Evaluator(used, limits, args.num_proc, gpu, args.trials)
    try:
        results = evaluator.evaluate(preds)
    finally:
        evaluator.close()
    cats = {k: r["category"] for k, r in used.items()}
    shipped = "package" in data.columns(args.config)
    pkgs = {k: r["package"] for k, r in used.items()} if shipped else None
    groups = {k: r["split_group"] for k, r in used.items()} if "split_group" in data.columns(args.config) else None
    rep = scores.build(args.config, args.split, len(rows), results, cats, pkgs, groups)
    scores.write(rep, Path(args.out))
    print(scores.table(rep))
    if not rep["functional_evaluated"]:
        print("warp-cuda-ir: no GPU: functional is null for CUDA rows (compile stage only)", file=sys.stderr)
    print(f"wrote {args.out}")
    return 0
