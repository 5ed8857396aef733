"""Predictions made from a row's reference function: right ones, wrong ones, and ones that must be rejected."""

from __future__ import annotations

import re


def reformatted(ir: str) -> str:
    """Same tokens, different whitespace: every indent doubled, blank lines added, trailing spaces."""
    return "\n\n".join("  " + line.replace("    ", "\t") + "   " for line in ir.splitlines()) + "\n\n"


def constant_changed(ir: str) -> str:
    """The last numeric constant (the nearest to the stores) changed; a kernel without one has its first stored
    value doubled instead (generated kernels may compute from their inputs alone)."""
    consts = list(re.finditer(r"(const wp::(float|u?int)\d+ var_\d+ = )([-0-9.e+]+);", ir))
    if consts:
        m = consts[-1]
        value = repr(float(m.group(3)) * 1.5 + 1.0) if m.group(2) == "float" else str(int(m.group(3)) * 3 + 1)
        return ir[: m.start(3)] + value + ir[m.end(3) :]
    return re.sub(r"wp::array_store\((\w+), (\w+), (\w+)\)", r"wp::array_store(\1, \2, wp::add(\3, \3))", ir, count=1)


def syntax_error(ir: str) -> str:
    """The first statement's semicolon dropped."""
    n = ir.index(";")
    return ir[:n] + ir[n + 1 :]


def stores_zeros(ir: str) -> str:
    """Every array store and atomic add writes the zero of its value's type."""
    return re.sub(r"wp::(array_store|atomic_add)\((\w+), (\w+), (\w+)\)", r"wp::\1(\2, \3, decltype(\4){})", ir)


def infinite_loop(ir: str) -> str:
    """Spins forever before doing anything (a volatile read, so the compiler may not remove the loop)."""
    n = ir.index("{\n") + 2
    return ir[:n] + "    volatile int spin = 1;\n    while (spin) {}\n" + ir[n:]


def with_include(ir: str) -> str:
    return "#include <cstdio>\n" + ir


def with_extra_function(ir: str) -> str:
    return ir + '\nextern "C" void leak() {}\n'


def out_of_bounds(ir: str) -> str:
    """The first array store goes 400 million elements past the array (gigabytes away: unmapped memory)."""
    return re.sub(r"wp::array_store\((\w+), (\w+), ", r"wp::array_store(\1, \2 + 400000000, ", ir, count=1)
