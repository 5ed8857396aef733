"""Every row regenerates byte for byte from its (seed, split, index): the dataset's reproducibility claim.

Drawing a program and generating its code are fast (hundreds of programs a second), so every row is
regenerated, not a sample: a forged row whose hashes, card and manifest were all updated to match still differs
from what its coordinates give. Each program is drawn and emitted once for all the configs that hold it, and
only one program's units are held at a time. (The costly evidence, compiling and running, is not redone here.)
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext

import pyarrow as pa

from builder.checks.base import FolderCheck, Result, concat, mismatch_result
from builder.configs import UNITS, spec
from builder.folder_format import infer_categories
from builder.grammar.sample import sample

COLUMNS = ["id", "seed", "index", "pass", "kernel_name", "normalized_sha256", "entry_point", "module_options"]
TEXT = ["python_source", "ir", "module_source"]
EMITTED = tuple(UNITS)  # every unit a drawn program has a row of, in some config
# a standalone row: its two programs, Makefile and input bytes (expected_output is evidence: it needs a run)
STANDALONE = ["id", "seed", "index", "normalized_sha256", "python_source", "cpu_program", "cuda_program", "makefile"]
STANDALONE += ["inputs"]


class Determinism(FolderCheck):
    name = "determinism"

    def __init__(self, counter: Callable[[str, int], AbstractContextManager] | None = None):
        self.counter = counter  # counts the programs regenerated (the command shows it; the tests need not)

    def run(self, tables: dict[str, dict[str, pa.Table]]) -> Result:
        tables = {cfg: splits for cfg, splits in tables.items() if spec(cfg).generated}
        # (seed, split, index, category cycle) -> the rows of every config that hold that program
        programs: dict[tuple, list[tuple[str, str, int]]] = defaultdict(list)
        for cfg, splits in tables.items():
            t = concat(splits, ["index", "category"])
            cycle = infer_categories(t.column("index").to_pylist(), t.column("category").to_pylist())
            for split, st in splits.items():
                coords = st.select(["seed", "index"]).to_pylist()
                for i, c in enumerate(coords):
                    programs[c["seed"], split, c["index"], cycle].append((cfg, split, i))
        if not programs:
            return Result(self.name, "", "skip", "no generated rows")
        mismatches, rows = [], 0
        with self.counter("regenerating programs", len(programs)) if self.counter else nullcontext() as counter:
            for key in sorted(programs):
                regenerated = self._regenerate(*key)
                for cfg, split, i in programs[key]:
                    rows += 1
                    columns = STANDALONE if spec(cfg).programs else COLUMNS + TEXT
                    row = tables[cfg][split].slice(i, 1).select(columns).to_pylist()[0]
                    diff = self._differences(cfg, row, regenerated, (key[0], split, key[2]))
                    if diff:
                        mismatches.append((row["id"], diff))
                if counter is not None:
                    counter.add()
        passed = (
            f"all {rows} rows regenerate byte for byte (python_source, ir, module_source, module_options; standalone:"
            " cpu_program, cuda_program, makefile, inputs)"
        )
        return mismatch_result(self.name, rows, mismatches, "their regeneration", passed)

    @staticmethod
    def _differences(cfg: str, row: dict, regenerated: tuple | str, coords: tuple[int, str, int]) -> str:
        """Comma-separated columns that differ from a fresh draw, or the error that stopped the draw."""
        if isinstance(regenerated, str):
            return regenerated
        program, nsha, emitted = regenerated
        from builder.warp_backend import codegen

        if spec(cfg).programs:
            from builder.sources.drawn import standalone_rows

            try:
                want = standalone_rows.regenerate(program, *coords)
            except Exception as exc:  # noqa: BLE001 - a row that cannot be regenerated is a failure, not a crash
                return type(exc).__name__
            want |= {"python_source": program.source, "normalized_sha256": nsha}
            return ",".join(name for name, value in want.items() if row[name] != value)

        unit = emitted.get(_unit_of(cfg, row))
        if unit is None:
            return "no such row for this program"
        want = {
            "python_source": program.source,
            "ir": unit.ir,
            "module_source": unit.tu,
            "module_options": codegen.options_json(unit.options),
            "entry_point": unit.entry,
            "normalized_sha256": nsha,
        }
        return ",".join(name for name, value in want.items() if row[name] != value)

    @staticmethod
    def _regenerate(seed: int, split: str, index: int, cycle: tuple[str, ...]) -> tuple | str:
        """(program, normalized sha256, units) of row (seed, split, index), or why it could not be drawn."""
        # loads Warp: only when a folder is checked
        from builder.sources.drawn.program_row import emit_program, row_label
        from builder.sources.drawn.records import emitted_configs

        try:
            drawn = sample(seed, split, index, cycle)
            label = row_label(seed, split, index)
            mine = emitted_configs(drawn.program, EMITTED)
            emitted = emit_program(drawn.program, label, f"wcir_{split}_{index}", mine)
        except Exception as exc:  # noqa: BLE001 - a row that cannot be regenerated is a failure, not a crash
            return type(exc).__name__
        return drawn.program, drawn.normalized_sha256, emitted


def _unit_of(config: str, row: dict) -> str:
    """The unit a generated row holds: its config's one unit, else the one of its pass (gpu-verified)."""
    own = spec(config)
    if own.single_unit:
        return own.single_unit.name
    return next(u for u in own.units if UNITS[u].pass_ == row["pass"])
