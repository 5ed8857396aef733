"""Rows are what Warp's public pipeline writes: a sample put through ``wp.load_module`` / ``compile_aot_module``.

The determinism check proves a row is what this builder emits for its coordinates; this one proves that is
what Warp itself writes for a user of the row's program (``builder.warp_backend.public``), so a change in how
the builder drives Warp's code generator cannot drift from Warp unnoticed. Generated rows: the whole unit and
the ``ir`` function. ``real`` rows: the ``ir`` function, cut from the unit Warp writes for the shipped module
the kernel lives in (a real row's unit holds that kernel alone, so it is not compared).
"""

from __future__ import annotations

import random

from builder.checks.base import Check, Context, Result, SourceOf, mismatch_result
from builder.schema import features

FIDELITY_SAMPLE = 12  # rows validate puts through Warp's public pipeline by default (a few seconds each)
COLUMNS = ["id", "config", "target", "pass", "kernel_name", "python_source", "ir", "module_source", "entry_point"]


def differences(row: dict, reference: dict[str, str], source) -> str:
    """Comma-separated columns of ``row`` that differ from Warp's public output, or Warp's error (``source``: the
    row's row source, which says whether its unit is the whole of what Warp writes)."""
    from builder.warp_backend import units

    if "error" in reference:
        return f"Warp's public pipeline refused the program: {reference['error']}"
    tu = reference[row["target"]]
    # the ir function: the __global__ entry itself (CUDA), or the kernel the extern "C" CPU wrapper calls
    entry = row["entry_point"]
    symbol = entry if row["target"] == "cuda" else entry.removesuffix("_cpu_forward") + "_cpu_kernel_forward"
    # a shipped module's unit holds every overload of a generic kernel under one name: the row's is one of them
    found = units.functions(tu, symbol)
    if not found:
        return f"ir (Warp's unit has no {symbol})"
    bad = [] if row["ir"] in found else ["ir"]
    if source.whole_unit and tu != row["module_source"]:
        bad.append("module_source")
    return ",".join(bad)


class Fidelity(Check):
    """Rows with an ``ir`` are compared with Warp's public output; whole programs (standalone) embed the units that
    determinism regenerates through the same codegen.emit, and are built and run instead (``StandaloneRun``)."""

    name = "fidelity"

    def __init__(self, source_of: SourceOf):
        # a row's source says what Warp's public pipeline is handed for it (a program, or a shipped module), and
        # whether the row's unit is the whole of what Warp writes for it
        self.source_of = source_of

    def reference_key(self, row: dict) -> tuple[str, int]:
        """What to hand ``public.public_units`` for a row."""
        return self.source_of(row["config"]).public_reference(row)

    def differences(self, row: dict, references: dict) -> str:
        """What of ``row`` differs from Warp's public output (``references``: by ``reference_key``), or ""."""
        return differences(row, references[self.reference_key(row)], self.source_of(row["config"]))

    def run(self, context: Context) -> Result:
        from builder.warp_backend import public

        if context.sample <= 0:
            return Result(self.name, "", "skip", "--fidelity-sample 0")
        tables = {cfg: splits for cfg, splits in context.tables.items() if "ir" in features(cfg)}
        population = [
            (cfg, split, i) for cfg, splits in tables.items() for split, t in splits.items() for i in range(t.num_rows)
        ]
        if not population:
            return Result(self.name, "", "skip", "no rows")
        picks = sorted(random.Random(context.seed).sample(population, min(context.sample, len(population))))
        rows = []
        for cfg, split, i in picks:
            t = tables[cfg][split]
            extra = [c for c in ("block_dim", "source_path") if c in t.column_names]
            rows.append(t.slice(i, 1).select(COLUMNS + extra).to_pylist()[0])
        keys = sorted({self.reference_key(r) for r in rows})
        references = dict(zip(keys, public.public_units(keys)))
        mismatches = [(r["id"], d) for r in rows if (d := self.differences(r, references))]
        passed = (
            f"{len(rows)} sampled rows equal what wp.load_module / wp.compile_aot_module write for their program"
            f" ({len(keys)} programs)"
        )
        return mismatch_result(self.name, len(rows), mismatches, "Warp's public output", passed)
