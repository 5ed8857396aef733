"""Sampled rows regenerate byte for byte from their (seed, split, index): the dataset's reproducibility claim."""

from __future__ import annotations

import random

import pyarrow as pa

from builder.layout import infer_categories
from builder.schema import TARGETS
from builder.validate.base import MAX_OFFENDERS, Result, concat

COLUMNS = ["id", "seed", "index", "pass", "kernel_name", "normalized_sha256", "entry_point"]
TEXT = ["python_source", "ir", "module_source"]
EMITTED = ("cuda-forward", "cuda-backward", "cpu")


class Determinism:
    name = "determinism"

    def __init__(self, sample: int, seed: int):
        self.sample, self.seed = sample, seed
        self._emitted: dict[tuple, tuple] = {}  # one draw and emit per program, shared by its configs

    def run(self, tables: dict[str, dict[str, pa.Table]]) -> Result:
        if self.sample <= 0:
            return Result(self.name, "", "skip", "--determinism-sample 0")
        cycles, population = {}, []
        for cfg, splits in tables.items():
            t = concat(splits, ["index", "category"])
            cycles[cfg] = infer_categories(t.column("index").to_pylist(), t.column("category").to_pylist())
            population += [(cfg, split, i) for split, st in splits.items() for i in range(st.num_rows)]
        picks = random.Random(self.seed).sample(population, min(self.sample, len(population)))
        mismatches, details = [], []
        for cfg, split, i in picks:
            row = tables[cfg][split].slice(i, 1).select(COLUMNS + TEXT).to_pylist()[0]
            diff = self._differences(cfg, split, row, cycles[cfg])
            if diff:
                mismatches.append(row["id"])
                details.append(f"{row['id']}: {diff}")
        if mismatches:
            message = f"{len(mismatches)}/{len(picks)} regenerated rows differ ({'; '.join(details[:3])})"
            return Result(self.name, "", "fail", message, len(mismatches), mismatches[:MAX_OFFENDERS])
        message = f"{len(picks)} sampled rows regenerate byte for byte (python_source, ir, module_source)"
        return Result(self.name, "", "pass", message, len(picks))

    def _differences(self, cfg: str, split: str, row: dict, cycle: tuple[str, ...]) -> str:
        """Comma-separated columns that differ from a fresh draw, or the error that stopped the draw."""
        try:
            program, nsha, emitted = self._regenerate(row["seed"], split, row["index"], cycle)
        except Exception as exc:  # noqa: BLE001 - a row that cannot be regenerated is a failure, not a crash
            return type(exc).__name__
        unit = emitted[cfg if cfg in TARGETS else f"cuda-{row['pass']}"]
        want = {
            "python_source": program.source,
            "ir": unit.ir,
            "module_source": unit.tu,
            "entry_point": unit.entry,
            "normalized_sha256": nsha,
        }
        return ",".join(name for name, value in want.items() if row[name] != value)

    def _regenerate(self, seed: int, split: str, index: int, cycle: tuple[str, ...]) -> tuple:
        key = (seed, split, index, cycle)
        if key not in self._emitted:
            from builder.dataset.records import emitted_configs, sample
            from builder.warp_backend import codegen

            drawn = sample(seed, split, index, cycle)
            label = f"seed={seed} split={split} index={index}"
            emitted = codegen.emit(
                label,
                drawn.program.source,
                f"wcir_{split}_{index}",
                emitted_configs(drawn.program, EMITTED),
                block_dim=drawn.program.block_dim,
            )
            self._emitted[key] = (drawn.program, drawn.normalized_sha256, emitted)
        return self._emitted[key]
