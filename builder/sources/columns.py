"""Columns derived from a row's texts, computed the same way for every row source: from a kernel's Python source,
and from the unit Warp emitted for one target and pass. Warp-free, so a source can import it at module level."""

from __future__ import annotations

from builder.folder_format import sha256_text


def source_columns(python_source: str) -> dict:
    return {
        "python_source": python_source,
        "source_lines": sum(1 for x in python_source.splitlines() if x.strip()),
        "source_sha256": sha256_text(python_source),
    }


def unit_columns(target: str, pass_: str, ir: str, entry: str, module_source: str, module_options: str) -> dict:
    """``ir``: the kernel's function cut from ``module_source`` (the whole unit); ``module_options``: JSON."""
    return {
        "target": target,
        "pass": pass_,
        "ir": ir,
        "entry_point": entry,
        "module_source": module_source,
        "module_options": module_options,
        "ir_lines": len(ir.splitlines()),
        "ir_sha256": sha256_text(ir),
    }


# a unit's compile evidence until it is compiled (``shipped_compile.CompileJob.evidence`` fills it; rows left at
# --verify none keep it): real's and derived's rows start from it
NOT_COMPILED = {
    "compiled": None,
    "compile_target": None,
    "toolchain": None,
    "ptx": None,
    "ptx_instructions": None,
    "ptx_registers": None,
}
