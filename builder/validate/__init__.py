"""Validate a built folder (or a Hub repo) before publishing it.

``validate(source)`` runs every check and returns a ``Report``. The checks, by theme: ``shards`` (every shard the
folder lists is there), ``schema``, ``rows`` (single rows: text, placement, IR function, hashes), ``ids`` (unique
ids, exact duplicates), ``near_duplicates`` (MinHash), ``evidence`` (categories, builtins, verification),
``fidelity`` (a sample equals what Warp's public pipeline writes), ``card`` and ``datasets_load`` (``datasets``
loads every config, in memory and streamed, as a user does). Each row source present adds its own whole-folder
checks (``RowSource.folder_checks``): the generated one ``determinism`` (every row regenerates byte for byte) and
``standalone_run`` (whole programs; a sample built with g++ and run), the shipped one ``decontamination`` (real's
evaluation splits share no program with the generated configs). The ``real`` config (shipped kernels) gets the
checks that apply to rows without a seed or index: schema, text, placement, unique ids, IR function, hashes,
builtins, compile evidence.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from builder import sources
from builder.checks.base import Check, FolderCheckSettings, Result
from builder.configs import CONFIGS
from builder.dataset.progress import Counter
from builder.errors import UsageError
from builder.schema import features
from builder.validate.card import Card
from builder.validate.fidelity import FIDELITY_SAMPLE, Fidelity
from builder.validate.load import load
from builder.validate.results import Report
from builder.validate.schema import Schema, has_all_columns
from builder.validate.shards import Shards
from builder.validate.user_load import UserLoad

__all__ = ["Report", "Result", "validate", "config_checks"]


def config_checks(config: str = "cuda-forward") -> list[Check]:
    """The checks run on a config once its columns are all there, in report order: its row source's."""
    return sources.source_of(config).checks(config)


def validate(
    source: str | Path,
    config: str | None = None,
    fidelity_sample: int = FIDELITY_SAMPLE,
    seed_for_sampling: int = 0,
    progress: bool = False,
) -> Report:
    """Run every check on a folder or Hub repo id.

    Every generated row is regenerated (``determinism``); ``fidelity_sample`` rows, drawn with
    ``seed_for_sampling``, are put through Warp's public pipeline (``fidelity``; 0 skips it). ``progress``: say
    on stderr which check runs, and count the regenerated programs from the first seconds.

    Raises ``UsageError`` for a source or option it cannot use and ``CorruptShard`` for an unreadable shard.
    """
    start = time.perf_counter()
    source = str(source)
    if config is not None and config not in CONFIGS:
        raise UsageError(f"unknown config {config!r}; valid: {', '.join(CONFIGS)}")
    if fidelity_sample < 0:
        raise UsageError(f"--fidelity-sample must be >= 0, got {fidelity_sample}")

    def say(message: str) -> None:
        if progress:
            print(f"warp-cuda-ir validate: {message}", file=sys.stderr, flush=True)

    data = load(source, config)
    rows = {cfg: sum(t.num_rows for t in splits.values()) for cfg, splits in data.tables.items()}
    say(f"read {source}: " + ", ".join(f"{cfg} {n} rows" for cfg, n in rows.items()))
    results: list[Result] = []
    if data.folder is not None:
        results.append(Shards(data.folder, config).run(data.tables))
    complete = {}
    for cfg, splits in data.tables.items():
        if cfg not in CONFIGS:
            results.append(Result("config_name", cfg, "fail", f"unknown config directory {cfg!r}"))
            continue
        results.append(Schema(data.mismatched.get(cfg)).run(cfg, splits))
        if not has_all_columns(cfg, splits):
            continue  # columns are missing: the other checks cannot run
        complete[cfg] = splits
        say(f"{cfg}: {len(config_checks(cfg))} row checks")
        results += [check.run(cfg, splits) for check in config_checks(cfg)]
    settings = FolderCheckSettings(fidelity_sample, seed_for_sampling, Counter if progress else None, data.folder)
    for owner in sources.SOURCES:  # each row source's own whole-folder checks, when the folder holds its rows
        if any(sources.source_of(cfg) is owner for cfg in complete):
            for check in (c for c in owner.folder_checks(settings) if c.applies(complete)):
                say(check.name)
                results.append(check.run(complete))
    # rows with an ir are compared with Warp's public output; whole programs (standalone) embed the units that
    # determinism regenerates through the same codegen.emit, and are built and run instead
    emitted = {cfg: splits for cfg, splits in complete.items() if "ir" in features(cfg)}
    say(f"fidelity: {fidelity_sample} rows through Warp's public pipeline")
    results.append(Fidelity(fidelity_sample, seed_for_sampling).run(emitted))
    say("the card, and loading every config with datasets")
    if data.folder is not None:
        results.append(Card(data.folder, config).run(data.tables))
        results.append(UserLoad(data.folder, config).run(data.tables))
    else:  # a Hub repo was read through datasets.load_dataset already (``load``)
        results.append(Result("card", "", "skip", "Hub repo: the card is parsed by load_dataset itself"))
        results.append(Result(UserLoad.name, "", "skip", "Hub repo: every config was read with load_dataset above"))
    sizes = {cfg: {s: t.num_rows for s, t in splits.items()} for cfg, splits in data.tables.items()}
    return Report(source, sizes, results, time.perf_counter() - start)
