"""The grouped house style (generator 4.3.0): parameters a line each under group comments, uniforms first, then
arrays read, then arrays written, types spelled plainly. Drawn whole, in the share its odd says, and the argument
order the executor launches with is the order the signature declares."""

from __future__ import annotations

import ast

from builder.grammar.odds import Odds
from builder.grammar.policy import CATEGORIES
from builder.grammar.program import Param
from builder.grammar.sample import sample
from builder.grammar.style import GROUP_COMMENTS

COMMENT_GROUP = {c: g for g, comments in GROUP_COMMENTS.items() for c in comments}
ORDER = ("model", "in", "out")


def _signature(program) -> list[str]:
    lines = program.source.splitlines()
    start = next(n for n, line in enumerate(lines) if line.startswith(f"def {program.kernel_name}("))
    if lines[start].endswith(":"):  # on one line
        return lines[start : start + 1]
    end = next(n for n in range(start, len(lines)) if lines[n].startswith(")"))
    return lines[start : end + 1]


def _group_of(a) -> str:
    if isinstance(a, Param):
        return "model"
    return "out" if a.role in ("out", "acc", "inout") else "in"


def test_grouped_signatures_declare_the_launch_order_under_their_comments():
    grouped = total = 0
    for index in range(600):
        program = sample(11, "train", index, CATEGORIES).program
        total += 1
        sig = _signature(program)
        comments = [line.strip() for line in sig if line.strip().startswith("#")]
        if not comments:
            continue
        grouped += 1
        # the comments name the groups in order, each once
        groups = [COMMENT_GROUP[c] for c in comments]
        assert groups == sorted(groups, key=ORDER.index) and len(set(groups)) == len(groups), sig
        # each parameter sits under its own group's comment
        current, seen = None, []
        for line in sig[1:-1]:
            text = line.strip()
            if text.startswith("#"):
                current = COMMENT_GROUP[text]
            else:
                seen.append((text.split(":")[0], current))
        assert [(a.name, _group_of(a)) for a in program.args] == seen, sig
        # the executor passes program.args positionally: the same order as the def
        fn = next(n for n in ast.parse(program.source).body if getattr(n, "name", "") == program.kernel_name)
        assert [a.arg for a in fn.args.args] == [a.name for a in program.args]
        # types spelled plainly, arrays subscripted
        text = "\n".join(sig)
        for spelled in ("wp.float32", "wp.int32", "vec3f", "dtype="):
            assert spelled not in text, sig
    share = grouped / total
    assert abs(share - Odds().signature_groups) < 0.06, share
