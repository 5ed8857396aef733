"""Baseline predictions, so scores have a scale: ``python -m builder.evaluate.baselines``.

- ``reference``: each row's own ``ir`` (the ceiling: every rate 1.0);
- ``nearest``: the ``ir`` of the train row of the same category whose ``python_source`` is most similar
  (difflib ratio over tokens), i.e. retrieval without adaptation;
- ``nearest_body``: the row's own signature (from its reference) on the body of that nearest train row's
  ``ir``, so the prediction passes the static checks and is judged by compiling and running;
- ``empty``: the reference signature with an empty body (compiles, computes nothing): what ``compiled``
  alone is worth.
"""

from __future__ import annotations

import argparse
import difflib
import json
import re
import sys
from pathlib import Path

from builder.evaluate import data

KINDS = ("reference", "nearest", "nearest_body", "empty")
_TOKEN = re.compile(r"\w+|[^\w\s]")


def _tokens(source: str) -> list[str]:
    return _TOKEN.findall(source)


def nearest(row: dict, train: list[dict]) -> str:
    """The ir of the most similar same-category train row (ties: the first in dataset order)."""
    pool = [t for t in train if t["category"] == row["category"]] or train
    matcher = difflib.SequenceMatcher(autojunk=False)
    matcher.set_seq2(_tokens(row["python_source"]))
    best, best_ratio = pool[0], -1.0
    for t in pool:
        matcher.set_seq1(_tokens(t["python_source"]))
        ratio = matcher.ratio()
        if ratio > best_ratio:
            best, best_ratio = t, ratio
    return best["ir"]


def nearest_body(row: dict, train: list[dict]) -> str:
    other = nearest(row, train)
    return row["ir"][: row["ir"].index("{")] + other[other.index("{") :]


def empty(row: dict) -> str:
    ir = row["ir"]
    return ir[: ir.index("{") + 1] + "\n}\n"


def predictions(kind: str, rows: list[dict], train: list[dict]) -> list[dict]:
    make = {
        "reference": lambda r: r["ir"],
        "nearest": lambda r: nearest(r, train),
        "nearest_body": lambda r: nearest_body(r, train),
        "empty": empty,
    }[kind]
    return [{"id": r["id"], "ir": make(r)} for r in rows]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m builder.evaluate.baselines", description=__doc__.splitlines()[0])
    p.add_argument("--data", required=True)
    p.add_argument("--config", required=True)
    p.add_argument("--split", default="test")
    p.add_argument("--kind", choices=KINDS, required=True)
    p.add_argument("--out", required=True, help="PRED.jsonl to write")
    args = p.parse_args(argv)
    rows = data.load_rows(args.data, args.config, args.split)
    train = data.load_rows(args.data, args.config, "train") if args.kind.startswith("nearest") else []
    out = Path(args.out)
    tmp = out.with_name(f".{out.name}.tmp")
    tmp.write_text("".join(json.dumps(x) + "\n" for x in predictions(args.kind, rows, train)))
    tmp.replace(out)
    print(f"wrote {len(rows)} {args.kind} predictions to {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
