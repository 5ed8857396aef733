"""The transfer probe: how much a fixed small model learns from a source of training rows, measured on held-out
generated rows and on ``real``'s written code.

One run (``probe``) trains the protocol's model (``Protocol``: a BPE tokenizer trained on the first 2,000 train
rows of the generated folder, a 2-layer Llama of width 128 from a seeded init, a budget of optimizer steps of
8 rows, not minutes, so a slower machine gives the same figures) on a generated folder's cpu train split, on
``real``'s train split (``mix`` share 1), or on a seeded mix of the two, then scores it with
``heldout.score`` (nats per byte of ir, whole rows only): the first 200 generated test rows, every ``real``
cpu test row (per package and per split group: unseen modules of seen packages, held-out packages) and, where
asked, every ``real`` validation row (the split choices are made on). Same data, seed, steps and thread count:
the same figures (seeded init and shuffle, ``torch.use_deterministic_algorithms``, a fixed thread count, the
CPU even where a GPU is present).

``verdict`` reads the reports of many runs and writes the table of what each source teaches: one line per
training source (generator version, share of written code), mean and spread over seeds, the best share chosen
on ``real`` validation only. ``scripts/transfer_probe.py`` and ``scripts/probe_table.py`` are its commands.
"""

from __future__ import annotations

import dataclasses
import json
import math
import statistics
import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from builder.errors import ConfigError

COLUMNS = ("rows", "scored", "left_out", "nats_per_byte", "nats_per_token", "eos_nats")
GROUPS = ("in-project", "held-out")  # real test's split groups, in the table's order


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
    data: str,
    real: str,
    protocol: Protocol,
    run: Path,
    progress: Callable[[str], None] = print,
    mix: tuple[str, float] | None = None,
    validation: bool = False,
    generated_test: str = "",
) -> dict:
    """Train the protocol's model into ``run`` on ``data``'s cpu train split (with ``mix``: (folder, share) of
    real train rows; share 1: real train rows only, ``data`` still giving the tokenizer) and score it; the
    report. ``generated_test`` (default ``data``) holds the generated test rows scored, so runs on different
    generators score the same rows; ``validation`` also scores ``real``'s validation split."""
    from transformers.utils import logging

    from builder.train import checkpoint, heldout, loop

    logging.disable_progress_bar()  # save and load bars, noise between the step lines
    deterministic(protocol.threads)
    started = time.monotonic()
    record = loop.train(protocol.train_options(data, str(run), mix), progress=progress)
    trained = time.monotonic()
    generated = heldout.score(run, generated_test or data, "cpu", "test", protocol.test_rows)
    shipped = heldout.score(run, real, "real", "test", 0)
    checked = heldout.score(run, real, "real", "validation", 0) if validation else None
    info = checkpoint.check_format(json.loads((run / "run.json").read_text()), run)
    return {
        "protocol": protocol_record(protocol, data, real, generated_test or data),
        "mix": {"data": mix[0], "config": "real", "share": mix[1]} if mix else None,
        "train": {
            "final_batch_loss": record.get("loss"),
            "rows_seen": protocol.steps * protocol.batch_size,
            "parameters": info["parameters"],
            "tokens_per_row": info["tokens_per_row"],
        },
        "generated": generated,
        "real": shipped,
        "validation": checked,
        "seconds": {"train": round(trained - started, 1), "score": round(time.monotonic() - trained, 1)},
    }


def protocol_record(protocol: Protocol, data: str, real: str, generated_test: str = "") -> dict:
    import tokenizers
    import torch
    import transformers

    from builder.train import checkpoint

    return {
        **dataclasses.asdict(protocol),
        "data": {"generated": data, "real": real, "generated_test": generated_test or data},
        "generator_version": {"generated": generator_version(data), "real": generator_version(real)},
        "checkpoint_format": checkpoint.FORMAT,
        "device": "cuda" if torch.cuda.is_available() else "cpu",  # cpu from the command line
        "versions": {m.__name__: m.__version__ for m in (torch, transformers, tokenizers)},
    }


def table(report: dict) -> str:
    """One run's figures: the generated test rows, real test (per package and split group), real validation."""
    lines = [f"{'':<28}" + "".join(f"{c:>15}" for c in COLUMNS)]
    parts = [("generated (cpu test)", report["generated"]), ("real (cpu test)", report["real"])]
    parts += [("real (cpu validation)", report["validation"])] if report.get("validation") else []
    for name, result in parts:
        subs = [*result["by_source"].items(), *result.get("by_group", {}).items()]
        for label, summary in [(name, result), *((f"  {k}", v) for k, v in subs)]:
            lines.append(f"{label:<28}" + "".join(f"{_cell(summary[c]):>15}" for c in COLUMNS))
    return "\n".join(lines)


def _cell(value) -> str:
    return "-" if value is None else f"{value:.4f}" if isinstance(value, float) else str(value)


def finite(report: dict) -> bool:
    """Every loss figure of the report is a finite number (a diverged or empty run is not a result)."""
    parts = [report["generated"], report["real"]] + ([report["validation"]] if report.get("validation") else [])
    values = [r[k] for r in parts for k in COLUMNS[3:]]
    return all(isinstance(v, float) and math.isfinite(v) for v in values)


# --- the verdict over many runs ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Source:
    """What a run trained on: the generator version of its generated rows and the share of real train rows."""

    generator: str
    share: float  # 0: generated rows only; 1: real train rows only

    @property
    def label(self) -> str:
        if self.share >= 1:
            return "real train only"
        if self.share == 0:
            return f"generated rows only (generator {self.generator})"
        return f"real train + generator {self.generator}, generated share {1 - self.share:g}"


def source_of(report: dict) -> Source:
    mix = report.get("mix")
    return Source(report["protocol"]["generator_version"]["generated"] or "?", mix["share"] if mix else 0.0)


def _cells(report: dict) -> dict[str, float | None]:
    groups = report["real"].get("by_group", {})
    out = {f"real test: {g}": groups.get(g, {}).get("nats_per_byte") for g in GROUPS}
    out["real test"] = report["real"]["nats_per_byte"]
    out["generated test"] = report["generated"]["nats_per_byte"]
    out["real validation"] = (report.get("validation") or {}).get("nats_per_byte")
    return out


def _spread(values: list[float]) -> dict:
    return {
        "mean": round(statistics.fmean(values), 4),
        "min": round(min(values), 4),
        "max": round(max(values), 4),
        "sd": round(statistics.stdev(values), 4) if len(values) > 1 else None,
        "n": len(values),
    }


def verdict(reports: Iterable[dict]) -> dict:
    """Per training source: each cell's mean, range and standard deviation over its runs' seeds, the seeds,
    and the share with the lowest mean real *validation* loss (the one choice the table makes; never on test).
    Every run must share one protocol apart from its seed, one real folder and one generated test folder."""
    runs: dict[Source, list[dict]] = defaultdict(list)
    fixed = None
    for report in reports:
        p = dict(report["protocol"])
        key = json.dumps(
            {k: v for k, v in p.items() if k not in ("seed", "data", "generator_version")}
            | {"real": p["data"]["real"], "generated_test": p["data"].get("generated_test")},
            sort_keys=True,
        )
        if fixed not in (None, key):
            raise ConfigError("the reports were not made with one protocol, real folder and generated test folder")
        fixed = key
        runs[source_of(report)].append(report)
    if not runs:
        raise ConfigError("no probe reports to summarize")
    lines = []
    for source in sorted(runs, key=lambda s: (s.share >= 1, s.share, s.generator)):
        cells = defaultdict(list)
        for report in runs[source]:
            for name, value in _cells(report).items():
                if value is not None:
                    cells[name].append(value)
        seeds = sorted(r["protocol"]["seed"] for r in runs[source])
        if len(set(seeds)) != len(seeds):
            raise ConfigError(f"{source.label}: two reports with the same seed {seeds}")
        lines.append(
            {
                "source": source.label,
                "generator": source.generator,
                "real_share": source.share,
                "seeds": seeds,
                "cells": {name: _spread(values) for name, values in cells.items()},
                "seconds": round(statistics.fmean(r["seconds"].get("total", 0.0) for r in runs[source]), 1),
            }
        )
    mixed = [ln for ln in lines if 0 < ln["real_share"] < 1 and "real validation" in ln["cells"]]
    best = min(mixed, key=lambda ln: ln["cells"]["real validation"]["mean"]) if mixed else None
    return {
        "protocol": json.loads(fixed),
        "lines": lines,
        "best_on_validation": best and {"source": best["source"], "real_share": best["real_share"]},
    }


TABLE_COLUMNS = ("real test: in-project", "real test: held-out", "real test", "generated test", "real validation")


def verdict_markdown(summary: dict) -> str:
    """The verdict as a Markdown table: mean ± sd (range) over seeds, nats per byte of ir."""
    head = "| trained on | seeds | " + " | ".join(TABLE_COLUMNS) + " |"
    lines = [head, "|" + "---|" * (len(TABLE_COLUMNS) + 2)]
    for ln in summary["lines"]:
        cells = []
        for name in TABLE_COLUMNS:
            c = ln["cells"].get(name)
            if not c:
                cells.append("-")
                continue
            sd = f" ± {c['sd']:.4f}" if c["sd"] is not None else ""
            cells.append(f"{c['mean']:.4f}{sd} ({c['min']:.4f}-{c['max']:.4f})")
        best = summary["best_on_validation"]
        mark = " (best on validation)" if best and ln["source"] == best["source"] else ""
        lines.append(f"| {ln['source']}{mark} | {', '.join(map(str, ln['seeds']))} | " + " | ".join(cells) + " |")
    return "\n".join(lines)
