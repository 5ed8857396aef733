"""Validate a built folder (or a Hub repo) before publishing it: a loop over the checks, in report order.

``validate(source)`` reads the folder once (``BuiltFolder``) and runs every check (``builder.checks``) on one
``Context``: ``shards`` (every shard the folder lists is there); per config, ``config_name`` and ``schema``, then,
once its columns are all there, the checks its row source names (``RowSource.checks``: text, placement, ids,
duplicates, evidence, ...); then the whole-folder checks of every row source present (``RowSource.folder_checks``:
regeneration, whole programs run, decontamination), ``fidelity`` (a sample equals what Warp's public pipeline
writes), ``card`` and ``datasets_load`` (``datasets`` loads every config, in memory and streamed, as a user does).
"""

from __future__ import annotations

import sys
import time
from dataclasses import replace
from pathlib import Path

from builder import sources
from builder.built_folder import BuiltFolder
from builder.checks.base import Check, Context, Result
from builder.checks.card import Card
from builder.checks.determinism import Determinism
from builder.checks.fidelity import FIDELITY_SAMPLE, Fidelity
from builder.checks.schema import ConfigName, Schema, complete
from builder.checks.shards import Shards
from builder.checks.user_load import UserLoad
from builder.configs import CONFIGS
from builder.dataset.progress import Counter
from builder.errors import UsageError
from builder.sources.drawn.regenerate import regenerate
from builder.validate.results import Report

__all__ = ["Report", "Result", "validate", "config_checks"]

FIRST = (Shards(),)  # the folder's files, before any row is looked at
PER_CONFIG = (ConfigName(), Schema())  # every config directory, complete or not
# every row of a drawn program regenerates: once over all such configs, whichever source wrote them
DRAWN = (Determinism(regenerate, sources.source_of),)
LAST = (Fidelity(sources.source_of), Card(), UserLoad())  # the whole folder, after each source's own


def config_checks(config: str = "cuda-forward") -> list[Check]:
    """The checks run on a config once its columns are all there, in report order: its row source's."""
    return sources.source_of(config).checks(config)


def validate(
    source: str | Path | BuiltFolder,
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
    opened = source if isinstance(source, BuiltFolder) else None  # read already (push validates what it uploads)
    source = opened.source if opened else str(source)
    if config is not None and config not in CONFIGS:
        raise UsageError(f"unknown config {config!r}; valid: {', '.join(CONFIGS)}")
    if fidelity_sample < 0:
        raise UsageError(f"--fidelity-sample must be >= 0, got {fidelity_sample}")

    def say(message: str) -> None:
        if progress:
            print(f"warp-cuda-ir validate: {message}", file=sys.stderr, flush=True)

    folder = opened or BuiltFolder.open(source, config)
    tables = folder.tables
    rows = {cfg: sum(t.num_rows for t in splits.values()) for cfg, splits in tables.items()}
    say(f"read {source}: " + ", ".join(f"{cfg} {n} rows" for cfg, n in rows.items()))
    context = Context(tables, folder, fidelity_sample, seed_for_sampling, Counter if progress else None)
    results: list[Result] = []

    def run(checks, context: Context, announce: bool = False) -> None:
        for check in checks:
            if check.applies(context):
                if announce:  # a whole-folder check can take minutes: say which runs
                    say(check.name)
                results.append(check.run(context))

    run(FIRST, context)
    whole = {cfg: splits for cfg, splits in tables.items() if complete(cfg, splits)}
    for cfg in tables:
        run(PER_CONFIG, context.narrowed(cfg))
        if cfg in whole:  # columns are missing otherwise: the other checks cannot run
            say(f"{cfg}: {len(config_checks(cfg))} row checks")
            run(config_checks(cfg), context.narrowed(cfg))
    context = replace(context, tables=whole)
    # each row source's own whole-folder checks, when the folder holds its rows
    present = {sources.source_of(cfg).name for cfg in whole}
    owned = [check for owner in sources.SOURCES if owner.name in present for check in owner.folder_checks()]
    run([*DRAWN, *owned], context, announce=True)
    say(f"fidelity: {fidelity_sample} rows through Warp's public pipeline")
    run(LAST[:1], context)
    say("the card, and loading every config with datasets")
    run(LAST[1:], context)
    sizes = {cfg: {s: t.num_rows for s, t in splits.items()} for cfg, splits in tables.items()}
    return Report(source, sizes, results, time.perf_counter() - start)
