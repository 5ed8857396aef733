"""The data-constrained probe: what synthetic rows add where written code runs out.

The transfer probe (``builder.train.probe``) trains on all of ``real`` train, which its step budget never sees
twice. Here written code is scarce: a *budget* of ``real`` train's ``cpu`` rows, drawn as whole modules in a
seeded order, small enough that the fixed number of steps passes over it many times (``passes``). At each budget
four arms train the same model for the same steps:

- ``budget``: the budget alone, repeated;
- ``budget+generated``: the budget mixed with generated rows, the generated share chosen on ``real`` validation;
- ``budget+derived``: the budget pooled with the ``derived`` rows made from the budget's own kernels only;
- ``generated,budget``: generated rows for the first half of the steps, then the budget (two phases).

Every arm is scored on one fixed seeded sample of ``real`` validation (where the share is chosen) and of ``real``
test (in-project and held-out groups, each its own sample), written once into an evaluation folder, so every run
scores the same rows. ``prepare`` writes the budgets and that folder; ``run_arm`` trains and scores one
(arm, budget, seed); ``table`` summarizes the reports (mean and spread over seeds).
"""

from __future__ import annotations

import json
import shutil
import statistics
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from builder.errors import ConfigError
from builder.rng import stable_int

ARMS = ("budget", "budget+generated", "budget+derived", "generated,budget")
CELLS = ("real validation", "real test: in-project", "real test: held-out")
SHARES = (0.25, 0.5)  # the written (budget) share of the budget+generated arm; the one with the lower validation wins


@dataclass(frozen=True)
class Budgets:
    """What the evaluation folder and the budgets hold: the sizes, and the seed of every draw (never a run's)."""

    budgets: tuple[int, ...] = (20, 80)  # at 40 steps of 8 (320 rows seen): passes of 16 and 4
    eval_rows: int = 100  # rows per scored sample: validation, test in-project, test held-out
    draw_seed: int = 0

    def __post_init__(self) -> None:
        if not self.budgets or any(not isinstance(b, int) or b < 1 for b in self.budgets):
            raise ConfigError(f"budgets must be positive integers, got {self.budgets!r}")
        if not isinstance(self.eval_rows, int) or self.eval_rows < 1:
            raise ConfigError(f"eval_rows must be a positive integer, got {self.eval_rows!r}")


def _table(folder: Path, split: str):
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    files = sorted((folder / "real").glob(f"{split}-*.parquet"))
    if not files:
        raise ConfigError(f"{str(folder)!r} holds no real/{split} shards (build it: warp-cuda-ir build --configs real)")
    table = pa.concat_tables(pq.read_table(f) for f in files)
    return table.filter(pc.equal(table["target"], "cpu"))


def _ordered(keys: list[str], *parts) -> list[str]:
    """``keys`` in a seeded order: a stable hash of (parts, key), the same on every machine."""
    return sorted(keys, key=lambda k: (stable_int(*parts, k), k))


def draw_budget(train, rows: int, seed: int):
    """``rows`` cpu rows of ``train`` as whole modules: modules in a seeded order, each taken when it still fits, so
    the budget is ``rows`` or just under it and holds no part of a module."""
    modules: dict[str, list[int]] = defaultdict(list)
    for n, path in enumerate(train.column("source_path").to_pylist()):
        modules[path.rsplit(":", 1)[0]].append(n)
    taken: list[int] = []
    for module in _ordered(list(modules), seed, "train", "budget", rows):
        if len(taken) + len(modules[module]) <= rows:
            taken += modules[module]
        if len(taken) == rows:
            break
    return train.take(sorted(taken))


def sample(table, rows: int, seed: int, *key):
    """A seeded sample of ``rows`` rows (all of them where there are fewer), in stored order."""
    ids = table.column("id").to_pylist()
    chosen = set(_ordered(ids, seed, *key)[:rows])
    return table.take([n for n, i in enumerate(ids) if i in chosen])


def write_folder(out: Path, config: str, splits: dict) -> Path:
    """A folder ``datasets.load_dataset(out, config)`` reads: one Parquet file per split and a card whose YAML
    lists them (the probe's own working data, never published)."""
    import pyarrow.parquet as pq

    (out / config).mkdir(parents=True, exist_ok=False)
    files = []
    for split, table in splits.items():
        pq.write_table(table, out / config / f"{split}-00000-of-00001.parquet")
        files.append(f"      - split: {split}\n        path: {config}/{split}-00000-of-00001.parquet\n")
    (out / "README.md").write_text(f"---\nconfigs:\n  - config_name: {config}\n    data_files:\n{''.join(files)}---\n")
    return out


def prepare(real: str, generated: str, protocol, out: str, budgets: Budgets = Budgets()) -> dict:
    """Write ``out/eval`` (the scored samples) and ``out/budget-B`` per budget from the built ``real`` folder, and
    ``out/tokenizer.json``, the protocol's tokenizer trained once on ``generated`` (every run loads it); the record
    of what was drawn."""
    import pyarrow.compute as pc

    from builder.train import tokenizer

    root, real_dir = Path(out), Path(real)
    if root.exists():
        raise ConfigError(f"{str(root)!r} exists; prepare writes a new folder")
    validation, test = _table(real_dir, "validation"), _table(real_dir, "test")
    by_group = {g: test.filter(pc.equal(test["split_group"], g)) for g in ("in-project", "held-out")}
    import pyarrow as pa

    scored_test = pa.concat_tables(
        sample(t, budgets.eval_rows, budgets.draw_seed, "test", g) for g, t in by_group.items()
    )
    scored_validation = sample(validation, budgets.eval_rows, budgets.draw_seed, "validation")
    write_folder(root / "eval", "real", {"validation": scored_validation, "test": scored_test})
    train = _table(real_dir, "train")
    record = {"real": str(real_dir), "budgets": {}, "eval": {"validation": scored_validation.num_rows}}
    record["eval"] |= {f"test {g}": min(budgets.eval_rows, t.num_rows) for g, t in by_group.items()}
    for rows in budgets.budgets:
        record["budgets"][rows] = _write_budget(root, rows, budgets.draw_seed, train, validation, test)
    tok = tokenizer.train_on_split(generated, "cpu", protocol.vocab_size, protocol.tokenizer_rows)
    tok.save(str(root / "tokenizer.json"))
    (root / "prepared.json").write_text(json.dumps(record, indent=1) + "\n")
    return record


def _write_budget(root: Path, rows: int, seed: int, train, validation, test) -> dict:
    """``root/budget-rows``: the drawn budget, with real's validation and test beside it (what a derived build keeps
    its variants away from); what was drawn."""
    drawn = draw_budget(train, rows, seed)
    write_folder(root / f"budget-{rows}", "real", {"train": drawn, "validation": validation, "test": test})
    return {
        "rows": drawn.num_rows,
        "modules": sorted({p.rsplit(":", 1)[0] for p in drawn.column("source_path").to_pylist()}),
    }


def add_budget(real: str, prepared: str, rows: int) -> dict:
    """One more budget in a prepared folder, drawn as ``prepare`` draws its own (the same draw seed), so a longer
    protocol can keep the passes of the short one (100 steps over 50 rows: 16 passes); recorded in
    ``prepared.json``."""
    root, real_dir = Path(prepared), Path(real)
    record_path = root / "prepared.json"
    if not record_path.is_file():
        raise ConfigError(f"{prepared!r} is not a prepared probe folder (no prepared.json; run prepare first)")
    if (root / f"budget-{rows}").exists():
        raise ConfigError(f"{str(root / f'budget-{rows}')!r} exists; a budget is drawn once")
    if rows < 1:
        raise ConfigError(f"a budget is a positive number of rows, got {rows}")
    tables = [_table(real_dir, split) for split in ("train", "validation", "test")]
    # written aside and renamed into place, so an interrupted draw leaves no half-written budget behind
    aside = Path(tempfile.mkdtemp(prefix=".budget-", dir=root))
    try:
        drawn = _write_budget(aside, rows, Budgets().draw_seed, *tables)
        (aside / f"budget-{rows}").rename(root / f"budget-{rows}")
    finally:
        shutil.rmtree(aside, ignore_errors=True)
    record = json.loads(record_path.read_text())
    record["budgets"][str(rows)] = drawn
    record_path.write_text(json.dumps(record, indent=1) + "\n")
    return drawn


def whole(real: str, prepared: str) -> Path:
    """``prepared/budget-N``: every cpu row of ``real`` train (N of them), the long form's budget (the columns
    training reads)."""
    from builder.train.stream import COLUMNS

    train = _table(Path(real), "train").select(COLUMNS)
    return write_folder(Path(prepared) / f"budget-{train.num_rows}", "real", {"train": train})


def pool(budget: str, derived: str, out: str) -> Path:
    """One folder whose ``real`` train split holds the budget's rows and the ``derived`` rows made from them (the
    columns training reads), so the arm draws every row alike."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from builder.train.stream import COLUMNS

    mine = _table(Path(budget), "train").select(COLUMNS)
    files = sorted((Path(derived) / "derived").glob("train-*.parquet"))
    if not files:
        raise ConfigError(f"{derived!r} holds no derived/train shards")
    extra = pa.concat_tables(pq.read_table(f, columns=COLUMNS) for f in files)
    extra = extra.filter(pa.compute.equal(extra["target"], "cpu")).cast(mine.schema)
    return write_folder(Path(out), "real", {"train": pa.concat_tables([mine, extra])})


def run_arm(
    arm: str,
    protocol,
    generated: str,
    prepared: str,
    budget: int,
    run: Path,
    share: float = 0.0,
    pooled: str = "",
    progress=print,
    every: int = 0,
    max_minutes: float = 0.0,
) -> dict:
    """Train ``arm`` at ``budget`` into ``run`` (the protocol's model, steps and seed) and score it on the
    evaluation folder; the report.

    ``every`` > 0 is the long form (all of ``real`` train, where a GPU is lent): a checkpoint every ``every``
    steps of the (last) phase, each scored on validation (the report's ``curve``), and test read once, at the
    checkpoint validation scores lowest (``chosen_step``). ``max_minutes`` also stops training after that long
    (the learning-rate schedule is then cut short, which the report's last step shows)."""
    import dataclasses

    from builder.train import checkpoint, heldout, loop
    from builder.train.probe import deterministic

    if arm not in ARMS:
        raise ConfigError(f"unknown arm {arm!r}; valid: {', '.join(ARMS)}")
    budget_dir = str(Path(prepared) / f"budget-{budget}")
    shared = str(Path(prepared) / "tokenizer.json")
    started = time.monotonic()
    deterministic(protocol.threads)
    if arm == "generated,budget":  # half the steps each, the second phase from the first's weights
        warmup = max(1, protocol.warmup_steps // 2)
        half = dataclasses.replace(protocol, steps=max(1, protocol.steps // 2), warmup_steps=warmup)
        rest = dataclasses.replace(protocol, steps=protocol.steps - half.steps, warmup_steps=warmup)
        first = dataclasses.replace(half.train_options(generated, str(run / "phase1")), tokenizer=shared)
        loop.train(dataclasses.replace(first, max_minutes=max_minutes / 2), progress=progress)
        opts = dataclasses.replace(
            rest.train_options(generated, str(run / "phase2"), (budget_dir, 1.0)), init_from=str(run / "phase1")
        )
        loop.train(_long(opts, every, max_minutes / 2), progress=progress)
        final = run / "phase2"
    else:
        mix = {"budget": (budget_dir, 1.0), "budget+generated": (budget_dir, share), "budget+derived": (pooled, 1.0)}
        if arm == "budget+derived" and not pooled:
            raise ConfigError("the budget+derived arm needs the pooled folder (constrained.pool)")
        if arm == "budget+generated" and not 0 < share < 1:
            raise ConfigError(f"the budget+generated arm needs a written share in (0, 1), got {share!r}")
        opts = dataclasses.replace(protocol.train_options(generated, str(run), mix[arm]), tokenizer=shared)
        loop.train(_long(opts, every, max_minutes), progress=progress)
        final = run
    trained = time.monotonic()
    evaluation = str(Path(prepared) / "eval")
    long_form = {}
    if every:
        curve = []
        for folder in checkpoint.folders(final):
            scored = heldout.score(folder, evaluation, "real", "validation", 0)
            curve.append({"step": int(folder.name.removeprefix(checkpoint.PREFIX)), "validation": scored})
        chosen = min(curve, key=lambda c: (c["validation"]["nats_per_byte"], c["step"]))
        final = checkpoint.folders(final)[curve.index(chosen)]
        log = checkpoint.read_log(final.parent.parent)
        long_form = {
            "curve": [{"step": c["step"], "validation": c["validation"]["nats_per_byte"]} for c in curve],
            "chosen_step": chosen["step"],
            "last_step": log[-1]["step"] if log else None,
            "epochs_at_last_step": log[-1]["epoch"] if log else None,
        }
    scored = {
        "validation": heldout.score(final, evaluation, "real", "validation", 0),
        "test": heldout.score(final, evaluation, "real", "test", 0),
    }
    return {
        "arm": arm,
        "budget": budget,
        "share": share if arm == "budget+generated" else None,
        "seed": protocol.seed,
        "protocol": dataclasses.asdict(protocol),
        "passes": round(protocol.steps * protocol.batch_size / budget, 1),
        **scored,
        **long_form,
        "seconds": {"train": round(trained - started, 1), "score": round(time.monotonic() - trained, 1)},
    }


def _long(opts, every: int, max_minutes: float):
    """The long form's options: every checkpoint kept, one every ``every`` steps; a time limit where one is set."""
    import dataclasses

    if not every:
        return opts
    return dataclasses.replace(opts, save_every=every, keep=0, max_minutes=max_minutes)


def cells(report: dict) -> dict[str, float]:
    groups = report["test"].get("by_group", {})
    return {
        "real validation": report["validation"]["nats_per_byte"],
        **{f"real test: {g}": groups[g]["nats_per_byte"] for g in ("in-project", "held-out") if g in groups},
    }


def table(reports: list[dict]) -> dict:
    """Per (budget, arm): each cell's mean and standard deviation over seeds. The budget+generated arm keeps the
    share with the lower mean validation loss (the one choice; test is only read for the line kept)."""
    lines: dict[tuple, list[dict]] = defaultdict(list)
    for r in reports:
        lines[(r["budget"], r["arm"], r["share"])].append(r)
    best = {}
    for budget in {b for b, a, _ in lines if a == "budget+generated"}:
        tried = {s: runs for (b, a, s), runs in lines.items() if b == budget and a == "budget+generated"}
        # on the seeds every share was run with (the choice is made before the other seeds are run)
        common = set.intersection(*({r["seed"] for r in runs} for runs in tried.values()))
        score = {
            s: statistics.fmean(cells(r)["real validation"] for r in runs if r["seed"] in common)
            for s, runs in tried.items()
        }
        best[budget] = (min(score, key=lambda s: (score[s], s)), score)
    out = []
    for (budget, arm, share), runs in sorted(lines.items(), key=lambda kv: (kv[0][0], ARMS.index(kv[0][1]))):
        if arm == "budget+generated" and share != best[budget][0]:
            continue
        seeds = sorted(r["seed"] for r in runs)
        values = {c: [cells(r)[c] for r in runs if c in cells(r)] for c in CELLS}
        out.append(
            {
                "budget": budget,
                "passes": runs[0]["passes"],
                "arm": arm,
                "share": share,
                "seeds": seeds,
                "cells": {
                    c: {
                        "mean": round(statistics.fmean(v), 4),
                        "sd": round(statistics.stdev(v), 4) if len(v) > 1 else None,
                    }
                    for c, v in values.items()
                    if v
                },
                "seconds": round(statistics.fmean(sum(r["seconds"].values()) for r in runs), 1),
            }
        )
    return {"lines": out, "shares_tried": sorted({s for (_, a, s) in lines if a == "budget+generated"})}


def markdown(summary: dict) -> str:
    head = "| budget (passes) | arm | seeds | " + " | ".join(CELLS) + " |"
    rows = [head, "|" + "---|" * (len(CELLS) + 3)]
    for ln in summary["lines"]:
        arm = ln["arm"] + (f" (written share {ln['share']:g}, chosen on validation)" if ln["share"] else "")
        vals = []
        for c in CELLS:
            cell = ln["cells"].get(c)
            sd = f" ± {cell['sd']:.4f}" if cell and cell["sd"] is not None else ""
            vals.append("-" if not cell else f"{cell['mean']:.4f}{sd}")
        seeds = ", ".join(map(str, ln["seeds"]))
        rows.append(f"| {ln['budget']} ({ln['passes']:g}) | {arm} | {seeds} | " + " | ".join(vals) + " |")
    return "\n".join(rows)
