import random

from builder.grammar.layout import _paired


def test_paired_loads_make_one_tuple_assignment_unless_the_second_reads_the_first():
    lines = ["    p = x[i]", "    v = y[i]", "    j = idx[i]", "    w = z[j]"]
    assert _paired(lines, random.Random(0), 1.0) == ["    p, v = x[i], y[i]", "    j = idx[i]", "    w = z[j]"]
    assert _paired(lines, random.Random(0), 0.0) == lines
