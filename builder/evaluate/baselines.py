"""Baseline predictions, so scores have a scale: ``python -m builder.evaluate.baselines``.

- ``reference``: each row's own ``ir`` (the ceiling: every rate 1.0);
- ``nearest``: the ``ir`` of the train row of the same category, target and pass whose own kernel (its ``def`` in
  ``python_source``, without the helpers and sibling kernels beside it) is most similar (difflib ratio over
  tokens), i.e. retrieval without adaptation;
- ``nearest_body``: the row's own signature (from its reference) on the body of that nearest train row's
  ``ir``, so the prediction passes the static checks and is judged by compiling and running;
- ``retrieval_rename``: that nearest row's ``ir`` with its kernel name and argument names replaced by the
  row's, argument by argument in order: the floor a trained model must beat, since copying a near neighbour
  and renaming it needs no understanding of the code;
- ``retrieval_rename_types``: the same, the neighbour taken among the train rows whose argument types equal the
  row's (the plain pool when none does);
- ``empty``: the reference signature with an empty body (compiles, computes nothing): what ``compiled``
  alone is worth.

The ``lift`` task goes the other way (prompt: the row's ``ir``; target: its ``python_source``; predictions are
``{"id", "python"}`` lines):

- ``lift_reference``: each row's own ``python_source`` (the ceiling);
- ``lift_retrieval_rename``: the ``python_source`` of the train row of the same target and pass whose ``ir`` is
  most similar to the row's (the prompt: never the row's own Python; difflib over tokens among the 32 rows whose
  token multisets overlap most), its kernel name and argument names replaced by the row's, by position.

The ``repair`` task (prompt: a repair row's ``broken_source`` and ``diagnostic``; target: a kernel Warp accepts that
computes what ``python_source`` computes; predictions are ``{"id": FIXED_ID, "python"}`` lines, scored on the
config of the rows ``fixed_id`` names: cpu for ``repair``):

- ``repair_reference``: each row's ``python_source`` (the ceiling);
- ``repair_unchanged``: the broken kernel itself (what Warp's diagnostic says is wrong stays wrong: the floor);
- ``repair_retrieval_rename``: the ``python_source`` of the train repair row whose ``broken_source`` is most
  similar to the row's (the same shortlist and alignment as ``lift_retrieval_rename``), renamed as above.

The train rows come from ``--train-data`` (default: ``--data``) and ``--train-config`` (default: ``--config``),
split ``train``: for ``real``, its own train split (written code of modules and packages the test rows are not
in). A train config of one unit (cpu, ...) predicts only the rows of its target and pass.
"""

from __future__ import annotations

import argparse
import difflib
import functools
import json
import re
import sys
from pathlib import Path

from builder.configs import CONFIGS, spec
from builder.evaluate import data
from builder.shipped.splits import own_kernel

KINDS = ("reference", "nearest", "nearest_body", "retrieval_rename", "retrieval_rename_types", "empty")
LIFT_KINDS = ("lift_reference", "lift_retrieval_rename")  # predictions of python_source from ir
REPAIR_KINDS = ("repair_reference", "repair_unchanged", "repair_retrieval_rename")  # a working kernel from a broken
REPAIR_COLUMNS = ["id", "kernel_name", "arg_names", "python_source", "broken_source", "fixed_id"]
SHORTLIST = 32  # lift retrieval: train rows aligned per row, after a linear pre-filter
RETRIEVAL = ("kernel_name", "arg_names", "arg_types")  # the columns renaming (and cutting the own kernel) reads
_TOKEN = re.compile(r"\w+|[^\w\s]")
# an identifier, with the struct access before it when it is one of the kernel's argument structs
# (``_wp_args->x``, ``wp_contiguous_args.x``, the backward's adjoint structs)
_IDENT = re.compile(r"(\b\w*args(?:->|\.))?\b([A-Za-z_]\w*)")
_ENTRY_SUFFIXES = tuple(f"_{t}_kernel_{p}" for t in ("cpu", "cuda") for p in ("forward", "backward"))


def _tokens(source: str) -> list[str]:
    return _TOKEN.findall(source)


def _own(row: dict) -> list[str]:
    """The tokens of a row's own kernel: a module's sibling kernels and shared helpers would dominate the match."""
    return _own_tokens(row["python_source"], row["kernel_name"])


@functools.lru_cache(maxsize=1 << 16)  # each train row is read once per predicted row
def _own_tokens(source: str, kernel_name: str) -> list[str]:
    return _tokens(own_kernel(source, kernel_name))


def nearest_row(row: dict, train: list[dict], same_types: bool = False) -> dict:
    """The train row of the same target and pass (and category, where there is one) whose own kernel is most
    similar (difflib ratio over tokens; ties: the first in dataset order); with ``same_types``, among those whose
    argument types equal the row's when there are any."""
    unit = [t for t in train if (t["target"], t["pass"]) == (row["target"], row["pass"])] or train
    pool = [t for t in unit if t["category"] == row["category"]] or unit
    if same_types:
        pool = [t for t in pool if t["arg_types"] == row["arg_types"]] or pool
    return _most_similar(_own(row), pool, _own)


def _most_similar(tokens: list[str], pool: list[dict], tokens_of) -> dict:
    """The row of ``pool`` whose ``tokens_of(row)`` has the highest difflib ratio with ``tokens`` (ties: the first)."""
    matcher = difflib.SequenceMatcher(autojunk=False)
    matcher.set_seq2(tokens)
    best, best_ratio = pool[0], -1.0
    for t in pool:
        matcher.set_seq1(tokens_of(t))
        # quick_ratio bounds ratio from above: a row that cannot beat the best is not aligned (same answer)
        if matcher.quick_ratio() <= best_ratio:
            continue
        ratio = matcher.ratio()
        if ratio > best_ratio:
            best, best_ratio = t, ratio
    return best


def nearest(row: dict, train: list[dict]) -> str:
    return nearest_row(row, train)["ir"]


def nearest_body(row: dict, train: list[dict]) -> str:
    other = nearest(row, train)
    return row["ir"][: row["ir"].index("{")] + other[other.index("{") :]


def rename(ir: str, source: dict, target: dict) -> str:
    """``source``'s ``ir`` with its kernel name and argument names replaced by ``target``'s (by position): in the
    entry point and its argument struct, the argument variables (``var_x``, ``adj_x``) and struct fields."""
    old, new = source["kernel_name"], target["kernel_name"]
    args = dict(zip(source["arg_names"], target["arg_names"]))

    def one(m: re.Match) -> str:
        access, word = m.group(1) or "", m.group(2)
        if access:
            return access + args.get(word, word)
        for prefix in ("var_", "adj_"):
            if word.startswith(prefix) and word[len(prefix) :] in args:
                return prefix + args[word[len(prefix) :]]
        if word == f"wp_args_{old}":
            return f"wp_args_{new}"
        if word.startswith(old) and word[len(old) :] in _ENTRY_SUFFIXES:
            return new + word[len(old) :]
        return word

    return _IDENT.sub(one, ir)


def retrieval_rename(row: dict, train: list[dict], same_types: bool = False) -> str:
    other = nearest_row(row, train, same_types)
    return rename(other["ir"], other, row)


@functools.lru_cache(maxsize=1 << 16)
def _ir_tokens(ir: str) -> list[str]:
    return _tokens(ir)


def nearest_by_ir(row: dict, train: list[dict]) -> dict:
    """The train row of the same target and pass whose ``ir`` is most similar to the row's (difflib ratio over
    tokens; ties: the first in dataset order): retrieval on what a lifting model is shown."""
    pool = [t for t in train if (t["target"], t["pass"]) == (row["target"], row["pass"])] or train
    return nearest_by(row, pool, "ir")


def nearest_by(row: dict, pool: list[dict], column: str) -> dict:
    """The row of ``pool`` whose ``column`` is most similar to the row's (difflib ratio over tokens; ties: the
    first in dataset order)."""
    tokens = _ir_tokens(row[column])
    # an ir is hundreds of tokens and difflib's ratio quadratic in them: align only the SHORTLIST rows whose token
    # multisets overlap most (quick_ratio, linear), ties kept in dataset order
    matcher = difflib.SequenceMatcher(autojunk=False)
    matcher.set_seq2(tokens)

    def overlap(t: dict) -> float:
        matcher.set_seq1(_ir_tokens(t[column]))
        return matcher.quick_ratio()

    ranked = sorted(range(len(pool)), key=lambda n: -overlap(pool[n]))[:SHORTLIST]
    return _most_similar(tokens, [pool[n] for n in sorted(ranked)], lambda t: _ir_tokens(t[column]))


def rename_python(source: str, other: dict, row: dict) -> str:
    """``other``'s Python source with its kernel name and argument names (whole words) replaced by ``row``'s, by
    position."""
    names = {other["kernel_name"]: row["kernel_name"], **dict(zip(other["arg_names"], row["arg_names"]))}
    return re.sub(r"\b[A-Za-z_]\w*\b", lambda m: names.get(m.group(0), m.group(0)), source)


def lift_retrieval_rename(row: dict, train: list[dict]) -> str:
    other = nearest_by_ir(row, train)
    return rename_python(other["python_source"], other, row)


def empty(row: dict) -> str:
    ir = row["ir"]
    return ir[: ir.index("{") + 1] + "\n}\n"


def repair_retrieval_rename(row: dict, train: list[dict]) -> str:
    other = nearest_by(row, train, "broken_source")
    return rename_python(other["python_source"], other, row)


def repair_rows(where: str, config: str, split: str) -> list[dict]:
    """A repair config's rows (the columns its baselines read), as ``datasets`` loads them."""
    import datasets

    return datasets.load_dataset(where, config, split=split).select_columns(REPAIR_COLUMNS).to_list()


def predictions(kind: str, rows: list[dict], train: list[dict]) -> list[dict]:
    if kind in REPAIR_KINDS:
        repair = {
            "repair_reference": lambda r: r["python_source"],
            "repair_unchanged": lambda r: r["broken_source"],
            "repair_retrieval_rename": lambda r: repair_retrieval_rename(r, train),
        }
        return [{"id": r["fixed_id"], "python": repair[kind](r)} for r in rows]
    if kind in LIFT_KINDS:
        lift = {
            "lift_reference": lambda r: r["python_source"],
            "lift_retrieval_rename": lambda r: lift_retrieval_rename(r, train),
        }
        return [{"id": r["id"], "python": lift[kind](r)} for r in rows]
    make = {
        "reference": lambda r: r["ir"],
        "nearest": lambda r: nearest(r, train),
        "nearest_body": lambda r: nearest_body(r, train),
        "retrieval_rename": lambda r: retrieval_rename(r, train),
        "retrieval_rename_types": lambda r: retrieval_rename(r, train, same_types=True),
        "empty": empty,
    }[kind]
    return [{"id": r["id"], "ir": make(r)} for r in rows]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m builder.evaluate.baselines", description=__doc__.splitlines()[0])
    p.add_argument("--data", required=True)
    p.add_argument("--config", required=True)
    p.add_argument("--split", default="test")
    p.add_argument("--kind", choices=KINDS + LIFT_KINDS + REPAIR_KINDS, required=True)
    p.add_argument("--train-data", default=None, help="folder or Hub id of the train rows (default: --data)")
    p.add_argument("--train-config", default=None, help="config of the train rows (default: --config)")
    p.add_argument("--out", required=True, help="PRED.jsonl to write")
    args = p.parse_args(argv)
    retrieval = args.kind.startswith(("nearest", "retrieval", "lift_retrieval", "repair_retrieval"))
    if args.kind in REPAIR_KINDS:
        if args.config not in CONFIGS or not spec(args.config).repair:
            p.error(f"--kind {args.kind} needs a repair config, got {args.config!r}")
        rows = repair_rows(args.data, args.config, args.split)
        train = (
            repair_rows(args.train_data or args.data, args.train_config or args.config, "train") if retrieval else []
        )
        return _write(Path(args.out), predictions(args.kind, rows, train), args.kind)
    rows = data.load_rows(args.data, args.config, args.split, extra=RETRIEVAL if retrieval else ())
    train = []
    if retrieval:
        train_config = args.train_config or args.config
        if train_config not in CONFIGS or not spec(train_config).ir or "train" not in spec(train_config).splits:
            p.error(f"--train-config must be a config of ir rows with a train split, got {train_config!r}")
        one = spec(train_config).single_unit
        if one:  # its rows hold one unit: predict the rows of that target and pass
            rows = [r for r in rows if (r["target"], r["pass"]) == (one.target, one.pass_)]
        train = data.load_rows(args.train_data or args.data, train_config, "train", extra=RETRIEVAL)
    return _write(Path(args.out), predictions(args.kind, rows, train), args.kind)


def _write(out: Path, made: list[dict], kind: str) -> int:
    tmp = out.with_name(f".{out.name}.tmp")
    tmp.write_text("".join(json.dumps(x) + "\n" for x in made))
    tmp.replace(out)
    print(f"wrote {len(made)} {kind} predictions to {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
