"""Wrong-but-plausible predictions, to measure how often ``functional`` catches a wrong body.

Each operator changes one site of a row's reference function, chosen by ``builder.rng.derive_rng`` from the
row's id and the operator, so the mutants are the same in every run:

- ``operator_swapped``: ``wp::add`` <-> ``wp::sub``, ``wp::mul`` <-> ``wp::div``, ``wp::min`` <-> ``wp::max``;
- ``operands_swapped``: the two operands of a ``wp::sub`` or ``wp::div``;
- ``constant_changed``: a numeric constant ``c`` becomes ``1.5 c + 1`` (integers ``3 c + 1``);
- ``branch_inverted``: ``if (x)`` <-> ``if (!x)``;
- ``comparison_flipped``: ``<`` <-> ``>=``, ``>`` <-> ``<=``, ``==`` <-> ``!=`` in a comparison;
- ``boundary_shifted``: ``<`` <-> ``<=``, ``>`` <-> ``>=`` (an off-by-one; equal operands may never occur).

A mutant can be equivalent to the reference (a changed value that no output reads), so a kill rate below one is
not by itself a miss of the evaluator. ``python -m builder.evaluate.mutants write`` writes the mutants of a split
as predictions (with an ``operator`` key ``evaluate`` ignores); ``score`` reads them with the report of
``warp-cuda-ir evaluate`` and prints the kill rate by operator.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path

from builder.evaluate import data
from builder.rng import derive_rng

_SWAP = {"add": "sub", "sub": "add", "mul": "div", "div": "mul", "min": "max", "max": "min"}
_FLIP = {"<": ">=", ">=": "<", ">": "<=", "<=": ">", "==": "!=", "!=": "=="}
_SHIFT = {"<": "<=", "<=": "<", ">": ">=", ">=": ">"}
_COMPARISON = r"(= \(var_\w+ )({ops})( var_\w+\);)"
_CONST = re.compile(r"(const wp::(float|u?int)\d+ var_\w+ = )([-0-9.e+]+);")


def _site(matches: list[re.Match], row_id: str, operator: str) -> re.Match | None:
    return matches[derive_rng(row_id, "mutant", operator).randrange(len(matches))] if matches else None


def _replace(ir: str, m: re.Match | None, group: int, text: str) -> str | None:
    return None if m is None else ir[: m.start(group)] + text + ir[m.end(group) :]


def operator_swapped(ir: str, row_id: str) -> str | None:
    m = _site(list(re.finditer(r"\bwp::(add|sub|mul|div|min|max)\(", ir)), row_id, "operator_swapped")
    return _replace(ir, m, 1, _SWAP[m.group(1)]) if m else None


def operands_swapped(ir: str, row_id: str) -> str | None:
    m = _site(list(re.finditer(r"\bwp::(?:sub|div)\((var_\w+), (var_\w+)\)", ir)), row_id, "operands_swapped")
    return None if m is None else ir[: m.start(1)] + f"{m.group(2)}, {m.group(1)}" + ir[m.end(2) :]


def constant_changed(ir: str, row_id: str) -> str | None:
    m = _site(list(_CONST.finditer(ir)), row_id, "constant_changed")
    if m is None:
        return None
    value = repr(float(m.group(3)) * 1.5 + 1.0) if m.group(2) == "float" else str(int(m.group(3)) * 3 + 1)
    return _replace(ir, m, 3, value)


def branch_inverted(ir: str, row_id: str) -> str | None:
    m = _site(list(re.finditer(r"\bif \((!?)(var_\w+)\)", ir)), row_id, "branch_inverted")
    return None if m is None else _replace(ir, m, 1, "" if m.group(1) else "!")


def _comparison(ir: str, row_id: str, table: dict[str, str], operator: str) -> str | None:
    ops = "|".join(re.escape(k) for k in sorted(table, key=len, reverse=True))
    m = _site(list(re.finditer(_COMPARISON.format(ops=ops), ir)), row_id, operator)
    return None if m is None else _replace(ir, m, 2, table[m.group(2)])


def comparison_flipped(ir: str, row_id: str) -> str | None:
    return _comparison(ir, row_id, _FLIP, "comparison_flipped")


def boundary_shifted(ir: str, row_id: str) -> str | None:
    return _comparison(ir, row_id, _SHIFT, "boundary_shifted")


OPERATORS = {
    f.__name__: f
    for f in (
        operator_swapped,
        operands_swapped,
        constant_changed,
        branch_inverted,
        comparison_flipped,
        boundary_shifted,
    )
}


def mutants(rows: list[dict]) -> list[dict]:
    """Every operator's mutant of every row that has a site for it, in row order, as prediction lines."""
    out = []
    for row in rows:
        for name, make in OPERATORS.items():
            ir = make(row["ir"], row["id"])
            if ir is not None and ir != row["ir"]:
                out.append({"id": row["id"], "ir": ir, "operator": name})
    return out


def kill_rates(lines: list[dict], report: dict) -> dict[str, dict]:
    """By operator (and ``all``): mutants, the share killed (not functional), and killed among those compiled.

    Only mutants of rows whose functional result is scored count (``not_scored`` rows cannot kill anything)."""
    if len(lines) != len(report["results"]):
        raise ValueError(f"{len(lines)} mutants but {len(report['results'])} results: not the report of this file")
    seen: dict[str, Counter] = {}
    for line, r in zip(lines, report["results"]):
        if r.get("not_scored") or r["functional"] is None:
            continue
        for key in (line["operator"], "all"):
            c = seen.setdefault(key, Counter())
            c["mutants"] += 1
            c["compiled"] += r["compiled"]
            c["killed"] += not r["functional"]
            c["killed_compiled"] += r["compiled"] and not r["functional"]
    return {
        k: {
            "mutants": c["mutants"],
            "kill_rate": round(c["killed"] / c["mutants"], 4),
            "compiled_kill_rate": round(c["killed_compiled"] / c["compiled"], 4) if c["compiled"] else None,
        }
        for k, c in sorted(seen.items())
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m builder.evaluate.mutants", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    w = sub.add_parser("write", help="write the mutants of a split as predictions (JSONL)")
    w.add_argument("--data", required=True)
    w.add_argument("--config", required=True)
    w.add_argument("--split", default="test")
    w.add_argument("--out", required=True)
    s = sub.add_parser("score", help="kill rates from the mutants file and evaluate's report")
    s.add_argument("--mutants", required=True)
    s.add_argument("--report", required=True)
    args = p.parse_args(argv)
    if args.cmd == "write":
        lines = mutants(data.load_rows(args.data, args.config, args.split))
        Path(args.out).write_text("".join(json.dumps(x) + "\n" for x in lines))
        print(f"wrote {len(lines)} mutants to {args.out}", file=sys.stderr)
        return 0
    lines = [json.loads(x) for x in Path(args.mutants).read_text().splitlines() if x.strip()]
    print(json.dumps(kill_rates(lines, json.loads(Path(args.report).read_text())), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
