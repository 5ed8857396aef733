"""The data-constrained probe's commands (``builder.train.constrained``): where written code is scarce.

    python scripts/data_constrained_probe.py prepare --real-data REAL --data GEN --out PROBE
    warp-cuda-ir build --configs derived --real-data PROBE/budget-B --verify none --out PROBE/derived-B
    python scripts/data_constrained_probe.py pool --prepared PROBE --budget B
    python scripts/data_constrained_probe.py run --prepared PROBE --data GEN --arm ARM --budget B --seed S \
        [--share W] --out REPORT.json
    python scripts/data_constrained_probe.py table REPORT.json ... --out TABLE.json

The long form, where a GPU is lent: all of ``real`` train as the budget (``whole`` writes PROBE/budget-N, N its
cpu rows), trained for ``--steps`` with a checkpoint every ``--every`` steps scored on validation, and test read at
the checkpoint validation chose:

    python scripts/data_constrained_probe.py whole --prepared PROBE --real-data REAL
    warp-cuda-ir build --configs derived --real-data REAL --verify none --out PROBE/derived-N
    python scripts/data_constrained_probe.py pool --prepared PROBE --budget N
    python scripts/data_constrained_probe.py run ... --budget N --steps S --every E [--max-minutes M]

A longer protocol keeps the passes with a larger budget drawn the same way (``budget`` adds PROBE/budget-B):

    python scripts/data_constrained_probe.py budget --prepared PROBE --real-data REAL --budget 50
    python scripts/data_constrained_probe.py run ... --budget 50 --steps 100 --every 20

REAL is a built ``real`` folder, GEN a built generated ``cpu`` folder (its train rows are the generated arm's and
its first 2,000 give the tokenizer in every run). The protocol is fixed (``PROTOCOL``); only the seed varies.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import shutil
import signal
import sys
import tempfile
from pathlib import Path

from builder.dataset import interrupts
from builder.errors import ConfigError
from builder.train import constrained
from builder.train.probe import Protocol

# 40 steps of 8 rows (320 seen): budgets of 20 and 80 rows are passed over 16 and 4 times. A context of 2,048
# (rows longer are cut in training and left out of scoring) and one tokenizer for every run keep a run near five
# minutes on one thread of the 2-core machine.
PROTOCOL = Protocol(steps=40, max_length=2048, max_prompt=512, warmup_steps=8)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True)
    prep = sub.add_parser("prepare", help="write the evaluation samples and the budgets")
    prep.add_argument("--real-data", required=True)
    prep.add_argument("--data", required=True, help="generated cpu folder (the tokenizer is trained on it)")
    prep.add_argument("--out", required=True)
    pool = sub.add_parser("pool", help="pool a budget with its derived rows (PROBE/derived-B) into PROBE/pooled-B")
    pool.add_argument("--prepared", required=True)
    pool.add_argument("--budget", type=int, required=True)
    more = sub.add_parser("budget", help="draw one more budget into a prepared folder (PROBE/budget-B)")
    more.add_argument("--prepared", required=True)
    more.add_argument("--real-data", required=True)
    more.add_argument("--budget", type=int, required=True)
    whole = sub.add_parser("whole", help="write PROBE/budget-N: all of real train's cpu rows (the long form)")
    whole.add_argument("--prepared", required=True)
    whole.add_argument("--real-data", required=True)
    run = sub.add_parser("run", help="train and score one arm at one budget and seed")
    run.add_argument("--prepared", required=True)
    run.add_argument("--data", required=True, help="generated cpu folder")
    run.add_argument("--arm", required=True, choices=constrained.ARMS)
    run.add_argument("--budget", type=int, required=True)
    run.add_argument("--seed", type=int, default=0)
    run.add_argument("--share", type=float, default=0.0, help="budget+generated: the written share")
    run.add_argument("--steps", type=int, default=0, help="the long form: steps instead of the protocol's")
    run.add_argument("--every", type=int, default=0, help="the long form: a checkpoint scored every N steps")
    run.add_argument("--max-minutes", type=float, default=0.0, help="the long form: also stop training after M")
    run.add_argument("--out", required=True)
    tab = sub.add_parser("table", help="summarize reports")
    tab.add_argument("reports", nargs="+")
    tab.add_argument("--out", default="")
    args = p.parse_args(argv)
    # SIGTERM and SIGHUP unwind like Ctrl-C: a run's temporary folder is removed, exit 128 + signal
    with interrupts.catch() as caught:
        try:
            return _command(args)
        except KeyboardInterrupt:
            signum = caught.signum or signal.SIGINT
            print(f"data_constrained_probe: interrupted ({signal.Signals(signum).name})", file=sys.stderr, flush=True)
            return 128 + signum


def _command(args) -> int:
    try:
        if args.command == "prepare":
            print(json.dumps(constrained.prepare(args.real_data, args.data, PROTOCOL, args.out), indent=1))
        elif args.command == "pool":
            root = Path(args.prepared)
            out = constrained.pool(
                str(root / f"budget-{args.budget}"),
                str(root / f"derived-{args.budget}"),
                str(root / f"pooled-{args.budget}"),
            )
            print(out)
        elif args.command == "budget":
            print(json.dumps(constrained.add_budget(args.real_data, args.prepared, args.budget), indent=1))
        elif args.command == "whole":
            print(constrained.whole(args.real_data, args.prepared))
        elif args.command == "run":
            if (args.steps or args.max_minutes) and not args.every:
                raise ConfigError("--steps and --max-minutes belong to the long form: give --every too")
            protocol = dataclasses.replace(PROTOCOL, seed=args.seed, steps=args.steps or PROTOCOL.steps)
            pooled = str(Path(args.prepared) / f"pooled-{args.budget}")
            work = Path(tempfile.mkdtemp(prefix="constrained-"))
            try:
                report = constrained.run_arm(
                    args.arm,
                    protocol,
                    args.data,
                    args.prepared,
                    args.budget,
                    work / "run",
                    args.share,
                    pooled,
                    every=args.every,
                    max_minutes=args.max_minutes,
                )
            finally:
                shutil.rmtree(work, ignore_errors=True)
            Path(args.out).write_text(json.dumps(report, indent=1) + "\n")
            print(json.dumps(constrained.cells(report)), report["seconds"])
        else:
            summary = constrained.table([json.loads(Path(r).read_text()) for r in args.reports])
            if args.out:
                Path(args.out).write_text(json.dumps(summary, indent=1) + "\n")
            print(constrained.markdown(summary))
    except ConfigError as exc:
        print(f"data_constrained_probe: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
