"""The body layout of generator 4.2.0 (long calls wrapped, blank lines) changes no token: Python's parser judges."""

import ast
import textwrap

from builder.grammar.policy import CATEGORIES
from builder.grammar.sample import sample
from builder.grammar.style import WRAP_WIDTH, _wrapped


def _same_statement(line: str) -> bool:
    one = ast.dump(ast.parse(textwrap.dedent(line)))
    return one == ast.dump(ast.parse(textwrap.dedent("\n".join(_wrapped(line)))))


def test_wrapping_a_long_call_keeps_the_statement():
    lines = [
        "    wp.atomic_add(accumulated_forces, wp.clamp(neighbour_index, 0, 15), contribution * weight)",
        "    out[i] = wp.cw_mul(tangent_direction - surface_normal, projected_point + offset_vector)",
        "    value = helper_function(values[wp.min(index + 1, count - 1)], weights[index], scale_factor)",
    ]
    for line in lines:
        assert len(line) > WRAP_WIDTH and len(_wrapped(line)) > 1 and _same_statement(line)
    comment = "    # a comment that is long enough to be wrapped if it were code, ending in (a, b)"
    assert _wrapped(comment) == [comment]


def test_generated_long_lines_wrap_to_the_same_statement():
    checked = 0
    for index in range(300):
        for line in sample(3, "train", index, CATEGORIES).program.source.splitlines():
            if len(line) > WRAP_WIDTH and line.endswith(")") and line.startswith("    ") and line[4] != " ":
                if line.lstrip().startswith(("if ", "for ", "while ", "elif ", "def ", "return", "@")):
                    continue
                assert _same_statement(line), line
                checked += 1
    assert checked > 10, "too few long lines left unwrapped to judge"


def test_inner_comments_open_blocks_at_their_indent_and_change_no_statement():
    import random

    from builder.grammar.style import _inner_comments

    body = [
        "    if x > 0.0:",
        "        y = x * 2.0",
        "    else:",
        "        y = 0.0",
        "    for j in range(4):",
        "        y += 1.0",
        "    out[i] = y",
    ]
    commented = _inner_comments(body, random.Random(0), 1.0)
    source = "def f(x, out, i):\n" + "\n".join(commented)
    assert ast.dump(ast.parse(source)) == ast.dump(ast.parse("def f(x, out, i):\n" + "\n".join(body)))
    for n, line in enumerate(commented):
        if line.lstrip().startswith("#"):
            nxt = next(c for c in commented[n:] if not c.lstrip().startswith("#"))
            assert len(line) - len(line.lstrip()) == len(nxt) - len(nxt.lstrip()) == 8
    assert sum(line.lstrip().startswith("#") for line in commented) >= 3
