"""The transfer probe's command: one run of ``builder.train.probe`` (train the fixed small model, score it).

    python scripts/transfer_probe.py --data GEN --real-data REAL [--steps 300] [--seed 0] [--threads 1]
                                     [--mix-data FOLDER --mix-share P] [--validation] [--generated-test FOLDER]
                                     [--build] [--run RUN] [--out transfer_probe.json]

GEN is a built folder with a ``cpu`` train and test split, REAL one with the ``real`` config (``--build``
builds whichever is missing, with the commands it prints). The protocol (``builder.train.probe.Protocol``) is
fixed; only steps, seed and threads are options, and figures compare only at equal values of all three. It
prints the protocol, a table, and writes OUT (JSON); ``scripts/probe_table.py`` summarizes many OUTs.

``--mix-data FOLDER --mix-share P`` draws a share P of the training rows from the train split of FOLDER's
``real`` config (its cpu rows), the rest from GEN, as ``warp-cuda-ir train --mix-config real`` does; P = 1
trains on written code only (GEN still gives the tokenizer). ``--validation`` also scores real's validation
split (where choices are made); ``--generated-test`` scores another folder's generated test rows (so runs on
two generator versions score the same rows).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import tempfile
import time
from pathlib import Path

from builder.cli import main as cli
from builder.dataset import interrupts
from builder.errors import ConfigError, OutputExists
from builder.train.probe import Protocol, finite, probe, protocol_record, table

GEN_BUILD = ["--configs", "cpu", "--verify", "none", "--num-validation", "0", "--num-test", "200", "--num-proc", "1"]
REAL_BUILD = ["--configs", "real", "--real-sources", "examples", "--verify", "none", "--num-proc", "1"]


def _build(folder: str, argv: list[str]) -> None:
    if Path(folder).exists():
        return
    print("building: warp-cuda-ir build " + " ".join([*argv, "--out", folder]), flush=True)
    if cli(["build", *argv, "--out", folder]) != 0:
        raise SystemExit(f"transfer_probe: building {folder} failed")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", required=True, help="built folder with a cpu train and test split")
    p.add_argument("--real-data", required=True, help="built folder with the real config")
    p.add_argument("--steps", type=int, default=Protocol.steps, help=f"optimizer steps (default {Protocol.steps})")
    p.add_argument("--seed", type=int, default=Protocol.seed, help="model init and shuffle seed (default 0)")
    threads = "torch CPU threads (default 1); figures compare only at equal thread counts"
    p.add_argument("--threads", type=int, default=Protocol.threads, help=threads)
    p.add_argument("--mix-data", default="", help="folder with the real config, its train split mixed in")
    p.add_argument("--mix-share", type=float, default=0.0, help="share of training rows from --mix-data (0 < P <= 1)")
    p.add_argument("--validation", action="store_true", help="also score real's validation split")
    p.add_argument("--generated-test", default="", help="folder whose generated test rows are scored (default --data)")
    p.add_argument("--build", action="store_true", help="build --data / --real-data first where missing")
    p.add_argument("--run", default="", help="keep the run folder here (default: a temporary folder, removed)")
    p.add_argument("--out", default="transfer_probe.json", help="the report (JSON)")
    args = p.parse_args(argv)
    started = time.monotonic()
    # SIGTERM and SIGHUP unwind like Ctrl-C: the temporary run folder is removed, exit 128 + signal
    with interrupts.catch() as caught:
        try:
            return _run(args, started)
        except KeyboardInterrupt:
            signum = caught.signum or signal.SIGINT
            print(f"transfer_probe: interrupted ({signal.Signals(signum).name})", file=sys.stderr, flush=True)
            return 128 + signum


def _run(args, started: float) -> int:
    try:
        protocol = Protocol(steps=args.steps, seed=args.seed, threads=args.threads)
        if bool(args.mix_data) != bool(args.mix_share):
            raise ConfigError("--mix-data and --mix-share go together")
        mix = (args.mix_data, args.mix_share) if args.mix_data else None
        if Path(args.out).is_dir():  # refused now, not when the report is written after half an hour
            raise ConfigError(f"--out {args.out} is a folder: name the report's file")
        if args.build:
            _build(args.data, GEN_BUILD)
            _build(args.real_data, REAL_BUILD)
        record = protocol_record(protocol, args.data, args.real_data, args.generated_test)
        print("protocol: " + json.dumps(record), flush=True)
        with tempfile.TemporaryDirectory(prefix="transfer_probe_") as tmp:
            run = Path(args.run) if args.run else Path(tmp) / "run"
            say = lambda m: print(m, flush=True)  # noqa: E731
            Path(args.out).parent.mkdir(parents=True, exist_ok=True)  # created once the run can start
            report = probe(args.data, args.real_data, protocol, run, say, mix, args.validation, args.generated_test)
    except (ConfigError, OutputExists) as exc:  # bad options, a missing folder or split, an existing --run
        print(f"transfer_probe: error: {exc}", file=sys.stderr)
        return 2
    report["seconds"]["total"] = round(time.monotonic() - started, 1)
    Path(args.out).write_text(json.dumps(report, indent=1) + "\n")
    print(table(report))
    print(f"wrote {args.out} ({report['seconds']['total']:.0f} s)")
    return 0 if finite(report) else 1


if __name__ == "__main__":
    os.environ["CUDA_VISIBLE_DEVICES"] = ""  # the protocol runs on the CPU: hide a GPU before torch looks
    sys.exit(main())
