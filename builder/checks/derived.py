"""The whole-folder checks of the ``derived`` config: its rows are what their seed and their source rows give
(``DerivedRegeneration``), and none of them comes near a kernel a model is scored on (``DerivedDecontamination``).

Both read the ``real`` rows the variants were made from: the folder's own ``real`` config when it holds one, else
the folder the build was pointed at (``--real-data``, as its manifest records it).
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from builder.built_folder import BuiltFolder
from builder.checks.base import MAX_OFFENDERS, Check, Context, Result, concat, mismatch_result
from builder.configs import names, spec
from builder.shipped.overlap import decontaminate
from builder.shipped.splits import POLICY

EVALUATED = ("validation", "test")  # real's splits a model is scored on; held-out packages are all in test
(WRITTEN,) = names(source="shipped")  # the config of written kernels that derived (and repair-real) rows vary
COLUMNS = ["id", "split", "target", "kernel_name", "python_source"]


def real_folder(folder: BuiltFolder | None) -> BuiltFolder | None:
    """The folder of the derived rows' source kernels, read: the folder's manifest's ``real_data``, absolute or
    relative to the folder's parent or the working directory."""
    named = (folder.options.get("real_data") if folder is not None else "") or ""
    if not named:
        return None
    paths = (Path(named), folder.path.parent / named, Path.cwd() / named)
    where = next((p for p in paths if (p / WRITTEN).is_dir()), None)
    return BuiltFolder.open(where, WRITTEN) if where is not None else None


def real_tables(tables: dict, folder: BuiltFolder | None) -> dict[str, pa.Table]:
    """The ``real`` splits: the folder's own, else those of its ``--real-data`` folder."""
    own = {c: s for c, s in tables.items() if spec(c).shipped}
    if own:
        return next(iter(own.values()))
    where = real_folder(folder)
    if where is None:
        return {}
    have = where.files[WRITTEN]
    return {split: where.read(WRITTEN, COLUMNS, (split,)) for split in ("train", *EVALUATED) if split in have}


def _label(tables: dict) -> str:
    """The derived configs a result is about (its ``config``)."""
    return ",".join(c for c in tables if spec(c).derived)


class _DerivedCheck(Check):
    """A check of the derived rows; the folder they are in names their real folder (its manifest's options)."""

    def applies(self, context: Context) -> bool:
        return any(spec(c).derived for c in context.tables)


class DerivedDecontamination(_DerivedCheck):
    """No derived kernel equals, or is a near copy of (``overlap.similarity`` >= the split plan's threshold), a
    kernel of ``real``'s validation or test split (the held-out packages included); fails naming each pair."""

    name = "derived_decontamination"

    def run(self, context: Context) -> Result:
        tables = context.tables
        real = real_tables(tables, context.folder)
        evaluated = [(r["id"], r["python_source"]) for s in EVALUATED if s in real for r in _distinct(real[s])]
        if not evaluated:
            return Result(
                self.name, _label(tables), "skip", "needs real's validation and test rows (beside it or --real-data)"
            )
        derived = [
            (r["id"], r["python_source"])
            for c in tables
            if spec(c).derived
            for r in _distinct(concat(tables[c], ["id", "python_source"]))
        ]
        r = decontaminate(evaluated, derived, threshold=POLICY.near_jaccard)
        pairs = sorted({(a, b, 1.0) for a, b in r.exact_source + r.exact_normalized} | set(r.near))
        message = f"{len(derived)} distinct derived kernels vs {len(evaluated)} real validation and test kernels"
        if pairs:
            named = "; ".join(f"{b} ~ {a} ({s:g})" for a, b, s in pairs[:3])
            return Result(
                self.name,
                _label(tables),
                "fail",
                f"{message}: {len(pairs)} near copies ({named})",
                len(pairs),
                [b for _, b, _ in pairs[:MAX_OFFENDERS]],
            )
        return Result(self.name, _label(tables), "pass", f"{message}: no exact or near copy", len(derived))


def _distinct(table: pa.Table) -> list[dict]:
    seen, out = set(), []
    for row in table.select(["id", "python_source"]).to_pylist():
        if row["python_source"] not in seen:
            seen.add(row["python_source"])
            out.append(row)
    return out


class DerivedRegeneration(_DerivedCheck):
    """Every derived row's source is the variant its seed, index and source row give (``builder.derive``), and its
    ``ir`` what Warp emits for that source now: a derived config regenerates as a generated one does."""

    name = "derived_regeneration"

    def run(self, context: Context) -> Result:
        from builder.derive import variants
        from builder.warp_backend.written import emit_fresh

        tables = context.tables
        real = real_tables(tables, context.folder)
        n = context.folder.options.get("num_derived") if context.folder is not None else None
        if "train" not in real or not n:
            return Result(self.name, _label(tables), "skip", "needs real's train rows (beside it or --real-data)")
        sources = {}
        for row in real["train"].select(["id", "kernel_name", "python_source"]).to_pylist():
            sources.setdefault(row["id"].rsplit("/", 1)[0], row)
        mismatches, checked, made, emitted = [], 0, {}, {}
        cols = ["id", "seed", "index", "derived_from", "python_source", "ir", "transforms"]
        for c in [c for c in tables if spec(c).derived]:
            for row in concat(tables[c], cols).to_pylist():
                checked += 1
                src = sources.get(row["derived_from"])
                if src is None:
                    mismatches.append((row["id"], f"its source {row['derived_from']} is not in real's train split"))
                    continue
                key = (row["seed"], row["derived_from"])
                if key not in made:  # a source kernel's rows are stored together: keep only its variants
                    drawn = variants(row["seed"], row["derived_from"], src["python_source"], src["kernel_name"], n)
                    made, emitted = {key: {v.number: v for v in drawn}}, {}
                v = made[key].get(row["index"] % n)
                if v is None or v.python_source != row["python_source"] or list(v.transforms) != row["transforms"]:
                    mismatches.append((row["id"], "python_source or transforms differ from its variant"))
                    continue
                if v.number not in emitted:
                    emitted[v.number] = emit_fresh(
                        row["id"], v.python_source, f"derived_{row['index']}", src["kernel_name"]
                    )
                unit = row["id"].rsplit("/", 1)[1]
                if unit not in emitted[v.number].units or emitted[v.number].units[unit].ir != row["ir"]:
                    mismatches.append((row["id"], "ir differs from what Warp emits for its source now"))
        return mismatch_result(self.name, checked, mismatches, "their regeneration", "every derived row regenerates")
