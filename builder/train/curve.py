"""A training run's curve: held-out losses and the evaluator's scores by checkpoint, reused across calls, and
the plot (``scripts/baseline_curve.py`` predicts and evaluates each checkpoint and calls these)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from builder.train import heldout

# the options a score depends on: scores measured with other values are measured again
SCORING = ("data", "config", "split", "limit", "max_new_tokens", "batch_size", "real_data", "loss_only")


def scoring(args: argparse.Namespace) -> dict:
    return {k: getattr(args, k) for k in SCORING}


def earlier(out: Path, args: argparse.Namespace) -> dict[int, dict]:
    """Scores by step that OUT.json holds from a call with the same scoring options."""
    path = out.with_suffix(".json")
    if not path.is_file():
        return {}
    old = json.loads(path.read_text())
    if old.get("scoring") != scoring(args):
        return {}
    return {s["step"]: s for s in old.get("scores", [])}


def held_out(ckpt: Path, data: str, config: str, split: str, limit: int, real_data: str = "") -> dict:
    """The checkpoint's held-out loss on the first ``limit`` rows of the split, and with ``real_data`` on every
    row of ``real``'s test split with the trained target and pass (how far the loss carries to written code)."""
    out = {"held_out": heldout.score(ckpt, data, config, split, limit)}
    if real_data:
        out["real_held_out"] = heldout.score(ckpt, real_data, "real", "test", 0)
    return out


def floor_rates(specs: list[str], ids: list[str] | None = None) -> dict[str, float]:
    """``NAME=REPORT`` (an ``evaluate`` report of a floor's predictions) -> NAME's compiled rate, over ``ids`` only
    when given (the rows the curve is scored on)."""
    out = {}
    for spec in specs:
        name, _, path = spec.partition("=")
        if not name or not path:
            raise ValueError(f"--floor takes NAME=REPORT.json, got {spec!r}")
        results = json.loads(Path(path).read_text())["results"]
        if ids is not None:
            keep = set(ids)
            results = [r for r in results if r["id"] in keep]
        out[name] = sum(bool(r["compiled"]) for r in results) / max(1, len(results))
    return out


def scored_ids(args: argparse.Namespace) -> list[str]:
    """The ids of the rows each checkpoint's predictions are scored on (``predict --limit``'s choice)."""
    from builder.train.predict import DecodeOptions, rows_to_predict

    rows = rows_to_predict(args.data, args.config, args.split, args.config, DecodeOptions(limit=args.limit))
    return [r["id"] for r in rows]


def plot(log: list[dict], scores: list[dict], out: Path, floors: dict[str, float] | None = None) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, middle, right) = plt.subplots(1, 3, figsize=(14, 3.6))
    steps = [s["step"] for s in scores]
    left.plot([r["step"] for r in log], [r["loss"] for r in log], label="train (batch)")
    for key, label, marker in (("held_out", "held out", "o"), ("real_held_out", "real (shipped kernels)", "s")):
        if all(key in s for s in scores):
            left.plot(steps, [s[key]["nats_per_token"] for s in scores], marker=marker, label=label)
            middle.plot(steps, [s[key]["nats_per_byte"] for s in scores], marker=marker, label=label)
    left.set(xlabel="step", ylabel="nats per ir token", title="loss per token")
    middle.set(xlabel="step", ylabel="nats per byte of ir", title="held-out loss per byte (whole rows)")
    left.legend()
    middle.legend()
    for key in ("exact_match", "compiled", "functional"):
        if all(key in s for s in scores):  # --loss-only scores have none
            right.plot(steps, [s[key] for s in scores], marker="o", label=key)
    for name, rate in (floors or {}).items():  # a model that has learned anything compiles more than these
        right.axhline(rate, linestyle="--", linewidth=1, color="gray")
        right.annotate(f"{name} compiled", (steps[0], rate), xytext=(0, 3), textcoords="offset points", fontsize=8)
    right.set(xlabel="step", ylabel="share of predictions", ylim=(-0.02, 1.02), title="greedy, generated test rows")
    if right.get_legend_handles_labels()[0]:
        right.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=110)
