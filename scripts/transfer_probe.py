"""A transfer probe: how much a fixed small model learns from a generated train split, on generated and shipped rows.

    python scripts/transfer_probe.py --data GEN --real-data REAL [--steps 300] [--seed 0] [--threads 1]
                                     [--mix-data FOLDER --mix-share P]
                                     [--build] [--run RUN] [--out transfer_probe.json]

GEN is a built folder with a ``cpu`` train and test split, REAL one with the ``real`` config (``--build``
builds whichever is missing, with the commands it prints). The protocol is fixed (``Protocol``): a BPE
tokenizer trained on the first 2,000 train rows, a 2-layer Llama of width 128 trained from a seeded init for
``--steps`` optimizer steps of 8 rows (a step budget, not minutes, so a slower machine gives the same
figures), then the held-out loss (``builder.train.heldout.score``: nats per byte and per token of ir, whole
rows only) on the first 200 generated test rows and on every ``real`` cpu row, per source package. It prints
the protocol, a table, and writes OUT (JSON). Given the same data, seed, steps and thread count it gives the
same figures: seeded init and shuffle, ``torch.use_deterministic_algorithms``, a fixed thread count, and
the CPU even where a GPU is present (bf16 there would change every figure). It is the yardstick for
comparing generator versions: build each version's GEN, run the probe on each with the same REAL.

``--mix-data FOLDER --mix-share P`` draws a share P of the training rows from the train split of FOLDER's ``real``
config (its cpu rows), the rest from GEN, as ``warp-cuda-ir train
--mix-config real`` does: the same model and steps, measuring what written code beside generated code buys.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import signal
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from builder.cli import main as cli
from builder.dataset import interrupts
from builder.errors import ConfigError, OutputExists

GEN_BUILD = ["--configs", "cpu", "--verify", "none", "--num-validation", "0", "--num-test", "200", "--num-proc", "1"]
REAL_BUILD = ["--configs", "real", "--real-sources", "examples", "--verify", "none", "--num-proc", "1"]
COLUMNS = ("rows", "scored", "left_out", "nats_per_byte", "nats_per_token", "eos_nats")


@dataclass(frozen=True)
class Protocol:
    """Everything that decides the figures. Only steps, seed and threads are options of the command."""

    steps: int = 300  # about 20 minutes of training with one thread on a shared 2-core machine
    seed: int = 0
    threads: int = 1
    batch_size: int = 8
    layers: int = 2
    hidden: int = 128
    heads: int = 4
    vocab_size: int = 8192
    # A context of 4,096 so the long shipped rows are scored whole (at 2,048, 12 of the 102 real cpu rows of
    # --real-sources examples, 30% of their ir bytes, did not fit). Generated rows reach about 2,900 tokens, so
    # positions past that are untrained: a generator that writes longer rows shows up here as a lower real loss.
    max_length: int = 4096
    max_prompt: int = 1024
    lr: float = 2e-3
    warmup_steps: int = 30
    buffer_size: int = 256
    tokenizer_rows: int = 2000
    test_rows: int = 200

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            kind = float if f.name == "lr" else int
            if isinstance(value, bool) or not isinstance(value, kind) or value < 0 or (value == 0 and f.name != "seed"):
                what = "a non-negative integer" if f.name == "seed" else f"a positive {kind.__name__}"
                raise ConfigError(f"{f.name} must be {what}, got {value!r}")

    def train_options(self, data: str, out: str, mix: tuple[str, float] | None = None):
        from builder.train.options import ModelOptions, TrainOptions

        model = ModelOptions(layers=self.layers, hidden=self.hidden, heads=self.heads, vocab_size=self.vocab_size)
        same = ("seed", "batch_size", "max_length", "max_prompt", "lr", "warmup_steps", "buffer_size")
        return TrainOptions(
            data=data,
            out=out,
            config="cpu",
            max_steps=self.steps,
            save_every=self.steps,  # one checkpoint, at the end
            keep=1,
            log_every=max(1, min(25, self.steps)),
            tokenizer_rows=self.tokenizer_rows,
            model=model,
            **({"mix_config": "real", "mix_data": mix[0], "mix_share": mix[1]} if mix else {}),
            **{name: getattr(self, name) for name in same},
        )


def deterministic(threads: int) -> None:
    import torch

    torch.set_num_threads(threads)
    torch.use_deterministic_algorithms(True)


def generator_version(folder: str) -> str | None:
    manifest = Path(folder) / "manifest.json"
    return json.loads(manifest.read_text()).get("generator_version") if manifest.is_file() else None


def probe(
    data: str, real: str, protocol: Protocol, run: Path, progress=print, mix: tuple[str, float] | None = None
) -> dict:
    """Train the protocol's model on ``data``'s cpu train split (with ``mix``: (folder, share) of real train rows)
    into ``run`` and score it; the report."""
    from transformers.utils import logging

    from builder.train import checkpoint, heldout, loop

    logging.disable_progress_bar()  # save and load bars, noise between the step lines
    deterministic(protocol.threads)
    started = time.monotonic()
    record = loop.train(protocol.train_options(data, str(run), mix), progress=progress)
    trained = time.monotonic()
    generated = heldout.score(run, data, "cpu", "test", protocol.test_rows)
    shipped = heldout.score(run, real, "real", "test", 0)
    info = checkpoint.check_format(json.loads((run / "run.json").read_text()), run)
    return {
        "protocol": protocol_record(protocol, data, real),
        "mix": {"data": mix[0], "config": "real", "share": mix[1]} if mix else None,
        "train": {
            "final_batch_loss": record.get("loss"),
            "rows_seen": protocol.steps * protocol.batch_size,
            "parameters": info["parameters"],
            "tokens_per_row": info["tokens_per_row"],
        },
        "generated": generated,
        "real": shipped,
        "seconds": {"train": round(trained - started, 1), "score": round(time.monotonic() - trained, 1)},
    }


def protocol_record(protocol: Protocol, data: str, real: str) -> dict:
    import tokenizers
    import torch
    import transformers

    from builder.train import checkpoint

    return {
        **dataclasses.asdict(protocol),
        "data": {"generated": data, "real": real},
        "generator_version": {"generated": generator_version(data), "real": generator_version(real)},
        "checkpoint_format": checkpoint.FORMAT,
        "device": "cuda" if torch.cuda.is_available() else "cpu",  # cpu from the command line
        "versions": {m.__name__: m.__version__ for m in (torch, transformers, tokenizers)},
    }


def table(report: dict) -> str:
    lines = [f"{'':<28}" + "".join(f"{c:>15}" for c in COLUMNS)]
    for name, result in (("generated (cpu test)", report["generated"]), ("real (cpu)", report["real"])):
        for label, summary in [(name, result), *((f"  {k}", v) for k, v in result["by_source"].items())]:
            lines.append(f"{label:<28}" + "".join(f"{_cell(summary[c]):>15}" for c in COLUMNS))
    return "\n".join(lines)


def _cell(value) -> str:
    return "-" if value is None else f"{value:.4f}" if isinstance(value, float) else str(value)


def finite(report: dict) -> bool:
    """Every loss figure of the report is a finite number (a diverged or empty run is not a result)."""
    values = [r[k] for r in (report["generated"], report["real"]) for k in COLUMNS[3:]]
    return all(isinstance(v, float) and math.isfinite(v) for v in values)


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
    p.add_argument("--mix-share", type=float, default=0.0, help="share of training rows from --mix-data (0 < P < 1)")
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
        if args.build:
            _build(args.data, GEN_BUILD)
            _build(args.real_data, REAL_BUILD)
        print("protocol: " + json.dumps(protocol_record(protocol, args.data, args.real_data)), flush=True)
        with tempfile.TemporaryDirectory(prefix="transfer_probe_") as tmp:
            run = Path(args.run) if args.run else Path(tmp) / "run"
            report = probe(args.data, args.real_data, protocol, run, lambda m: print(m, flush=True), mix)
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
