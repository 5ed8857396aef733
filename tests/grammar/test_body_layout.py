"""The body layout of generator 4.2.0 (long calls wrapped, blank lines) changes no token: Python's parser judges."""

import ast
import textwrap

from builder.grammar.layout import WRAP_WIDTH, _wrapped
from builder.grammar.policy import CATEGORIES
from builder.grammar.sample import sample


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
