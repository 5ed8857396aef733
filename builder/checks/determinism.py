"""Every row regenerates byte for byte from its (seed, split, index): the dataset's reproducibility claim.

Drawing a program and generating its code are fast (hundreds of programs a second), so every row is
regenerated, not a sample: a forged row whose hashes, card and manifest were all updated to match still differs
from what its coordinates give. Each program is drawn and emitted once for all the configs that hold it, and
only one program's units are held at a time. How a program is drawn again (``regenerate``) and what a row must
hold given that draw (``RowSource.regenerated``) are the row sources'; ``validate`` hands them to the check.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from contextlib import nullcontext

from builder.checks.base import Check, Context, Result, SourceOf, concat, mismatch_result
from builder.configs import spec
from builder.folder_format import infer_categories

COLUMNS = ["id", "seed", "index", "pass", "kernel_name", "normalized_sha256", "entry_point", "module_options"]
TEXT = ["python_source", "ir", "module_source"]
# a standalone row: its two programs, Makefile and input bytes (expected_output is evidence: it needs a run)
STANDALONE = ["id", "seed", "index", "normalized_sha256", "python_source", "cpu_program", "cuda_program", "makefile"]
STANDALONE += ["inputs"]

# (seed, split, index, category cycle) -> a program's draw, or why it could not be drawn
Regenerate = Callable[[int, str, int, tuple[str, ...]], object]


class Determinism(Check):
    """Run once over every config of drawn programs in the folder, whichever source wrote its rows: each program
    is drawn once for all of them."""

    name = "determinism"

    def __init__(self, regenerate: Regenerate, source_of: SourceOf):
        self.regenerate, self.source_of = regenerate, source_of

    def applies(self, context: Context) -> bool:
        return any(spec(cfg).generated for cfg in context.tables)

    def run(self, context: Context) -> Result:
        tables = {cfg: splits for cfg, splits in context.tables.items() if spec(cfg).generated}
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
        counting = context.counter  # counts the programs regenerated (the command shows it; the tests need not)
        with counting("regenerating programs", len(programs)) if counting else nullcontext() as counter:
            for key in sorted(programs):
                regenerated = self.regenerate(*key)
                for cfg, split, i in programs[key]:
                    rows += 1
                    columns = STANDALONE if spec(cfg).programs else COLUMNS + TEXT
                    row = tables[cfg][split].slice(i, 1).select(columns).to_pylist()[0]
                    want = self.source_of(cfg).regenerated(cfg, row, regenerated, (key[0], split, key[2]))
                    diff = want if isinstance(want, str) else ",".join(n for n, v in want.items() if row[n] != v)
                    if diff:
                        mismatches.append((row["id"], diff))
                if counter is not None:
                    counter.add()
        passed = (
            f"all {rows} rows regenerate byte for byte (python_source, ir, module_source, module_options; standalone:"
            " cpu_program, cuda_program, makefile, inputs)"
        )
        return mismatch_result(self.name, rows, mismatches, "their regeneration", passed)
