"""Checks of the repair configs: every row is whole and self-consistent (``RepairRows``), regenerates from its
(seed, split, index) or its real train row, Warp's diagnostic for its broken kernel included
(``RepairRegeneration``: Warp is asked again, so a row whose diagnostic Warp does not raise fails), and where the
folder holds the row its ``fixed_id`` names (cpu, real), its working kernel and evidence are that row's
(``RepairAgreesWithCpu``).
"""

from __future__ import annotations

from contextlib import nullcontext

from builder.checks.base import Check, Context, Result, RowCheck, concat, mismatch_result
from builder.checks.derived import real_tables
from builder.configs import spec
from builder.folder_format import infer_categories, sha256_text
from builder.grammar.sample import sample
from builder.repair import diagnostics, fixed_id, repair_columns
from builder.repair.mutations import KINDS
from builder.shipped.overlap import normalized_sha256

REGENERATED = ("python_source", "normalized_sha256", "broken_source", "mutation", "diagnostic_class", "diagnostic")
REGENERATED += ("diagnostic_line", "diff", "fixed_id")
WRITTEN = ("kernel_name", "python_source")  # what a repair-real row is regenerated from: its real train row
EVIDENCE = ("python_source", "compiled", "executed", "output_checksum", "grad_checksum")


def _repair_configs(tables: dict) -> list[str]:
    return [c for c in tables if spec(c).repair]


class RepairRows(RowCheck):
    name = "repair_rows"
    columns = ("python_source", "source_sha256", "broken_source", "mutation", "diagnostic", "diagnostic_line", "diff")
    columns += ("verify", "compiled")
    passed = "every row: a known edit, a diagnostic free of paths and addresses, the diff from broken to fixed"
    failed = "{n} repair rows are not whole or not consistent"

    def reason(self, config, split, row):
        if not (row["python_source"] and row["broken_source"] and row["diagnostic"]):
            return "empty python_source, broken_source or diagnostic"
        if sha256_text(row["python_source"]) != row["source_sha256"]:
            return "source_sha256"
        if row["mutation"] not in KINDS:
            return f"unknown mutation {row['mutation']!r}"
        if row["broken_source"] == row["python_source"]:
            return "broken_source is the working kernel"
        if diagnostics.machine_specific(row["diagnostic"]):
            return f"the diagnostic names {diagnostics.machine_specific(row['diagnostic'])!r}"
        line = row["diagnostic_line"]
        if line is not None and not 1 <= line <= len(row["broken_source"].splitlines()):
            return f"diagnostic_line {line} is not a line of broken_source"
        if row["diff"] != diagnostics.diff(row["broken_source"], row["python_source"]):
            return "diff is not the diff from broken_source to python_source"
        if row["verify"] != "none" and not row["compiled"]:
            return "the working kernel did not compile"
        return None


class RepairRegeneration(Check):
    """Each row's program drawn again and broken again, and Warp asked again for its diagnostic. A repair-real row's
    real rows are found beside it, or in its folder's ``--real-data``."""

    name = "repair_regeneration"

    def applies(self, context: Context) -> bool:
        return bool(_repair_configs(context.tables))

    def run(self, context: Context) -> Result:
        tables = context.tables
        mismatches, checked = [], 0
        written = [c for c in _repair_configs(tables) if spec(c).written]
        if written:
            real = real_tables(tables, context.folder).get("train")
            sources = {} if real is None else {r["id"]: r for r in real.select(["id", *WRITTEN]).to_pylist()}
        for config in written:
            for row in concat(tables[config], ["id", "seed", *REGENERATED]).to_pylist():
                checked += 1
                diff = self._written_differences(row, sources.get(row["fixed_id"]))
                if diff:
                    mismatches.append((row["id"], diff))
        for config in [c for c in _repair_configs(tables) if not spec(c).written]:
            splits = tables[config]
            t = concat(splits, ["index", "category"])
            cycle = infer_categories(t.column("index").to_pylist(), t.column("category").to_pylist())
            total = sum(s.num_rows for s in splits.values())
            counting = context.counter
            with counting("regenerating repair rows", total) if counting else nullcontext() as counter:
                for split, table in splits.items():
                    for row in table.select(["id", "seed", "index", *REGENERATED]).to_pylist():
                        checked += 1
                        diff = self._differences(config, row, split, cycle)
                        if diff:
                            mismatches.append((row["id"], diff))
                        if counter is not None:
                            counter.add()
        passed = f"all {checked} rows regenerate, Warp's diagnostic for each broken kernel included"
        return mismatch_result(self.name, checked, mismatches, "their regeneration", passed)

    @staticmethod
    def _written_differences(row: dict, src: dict | None) -> str:
        from builder.warp_backend.diagnose import first_rejected_written  # loads Warp: only when a folder is checked

        if src is None:
            return f"its fixed_id {row['fixed_id']} is not a row of real's train split (beside it or --real-data)"
        try:
            found = first_rejected_written(row["seed"], src["id"], src["python_source"], src["kernel_name"])
        except Exception as exc:  # noqa: BLE001 - a row that cannot be regenerated is a failure, not a crash
            return type(exc).__name__
        if found is None:
            return "Warp accepts every edit of the kernel"
        want = {"python_source": src["python_source"], "normalized_sha256": normalized_sha256(src["python_source"])}
        want |= repair_columns(src["python_source"], found, src["id"])
        return ",".join(name for name in REGENERATED if row[name] != want[name])

    @staticmethod
    def _differences(config: str, row: dict, split: str, cycle: tuple[str, ...]) -> str:
        from builder.warp_backend.diagnose import first_rejected  # loads Warp: only when a folder is checked

        seed, index = row["seed"], row["index"]
        try:
            drawn = sample(seed, split, index, cycle)
            program = drawn.program
            found = first_rejected(seed, split, index, program.source, program.kernel_name, program.block_dim)
        except Exception as exc:  # noqa: BLE001 - a row that cannot be regenerated is a failure, not a crash
            return type(exc).__name__
        if found is None:
            return "Warp accepts every edit of the program"
        want = {"python_source": program.source, "normalized_sha256": drawn.normalized_sha256}
        want |= repair_columns(program.source, found, fixed_id(config, seed, split, index))
        return ",".join(name for name in REGENERATED if row[name] != want[name])


class RepairAgreesWithCpu(Check):
    """A repair row's working kernel is its ``fixed_id`` row's, with the same evidence (when both are built)."""

    name = "repair_agrees_with_cpu"

    def applies(self, context: Context) -> bool:
        return bool(_repair_configs(context.tables))

    def run(self, context: Context) -> Result:
        tables = context.tables
        fixed = {}
        for config in tables:
            if spec(config).ir and (spec(config).generated or spec(config).shipped):
                for table in tables[config].values():
                    have = [c for c in EVIDENCE if c in table.column_names]
                    fixed |= {r["id"]: r for r in table.select(["id", *have]).to_pylist()}
        mismatches, checked = [], 0
        for config in _repair_configs(tables):
            for table in tables[config].values():
                have = [c for c in EVIDENCE if c in table.column_names]
                for row in table.select(["id", "fixed_id", *have]).to_pylist():
                    other = fixed.get(row["fixed_id"])
                    if other is None:
                        continue
                    checked += 1
                    diff = ",".join(c for c in have if c in other and row[c] != other[c])
                    if diff:
                        mismatches.append((row["id"], diff))
        if not checked:
            return Result(
                self.name, "", "skip", "no row a repair row names is in the folder (build cpu or real with it)"
            )
        passed = f"{checked} repair rows hold their fixed_id row's kernel and evidence"
        return mismatch_result(self.name, checked, mismatches, "the rows they name", passed)
