"""The columns every row of a drawn program has, whichever config pairs the program with what."""

from __future__ import annotations

from collections import Counter

from builder import GENERATOR_VERSION
from builder.build_options import BuildOptions
from builder.errors import GeneratorBug
from builder.grammar.program import Program
from builder.grammar.sample import Drawn
from builder.sources.columns import source_columns
from builder.warp_backend import codegen, compilers


def row_label(seed: int, split: str, index: int) -> str:
    """How errors, and Warp's rejections, name a drawn program's row."""
    return f"seed={seed} split={split} index={index}"


def emit_program(program: Program, label: str, module: str, units: tuple[str, ...]) -> dict[str, codegen.Unit]:
    """The ``units`` Warp emits for a drawn program, loaded alone as module ``module`` and built for the block_dim
    it is launched with (none asked: nothing emitted). Every source of drawn rows and their regeneration emit
    through here, so a row and its regeneration cannot differ in how the program reaches Warp."""
    if not units:
        return {}
    return codegen.emit(label, program.source, module, units, block_dim=program.block_dim)


def program_fields(opts: BuildOptions, config: str, split: str, index: int, drawn: Drawn) -> dict:
    """The columns every row of a drawn program has, whatever it pairs the program with: its coordinates, the
    program, how it is launched, and the versions that made it."""
    program = drawn.program
    return {
        "id": f"{config}/{split}/{opts.seed}/{index}",
        "config": config,
        "seed": opts.seed,
        "split": split,
        "index": index,
        "attempt": drawn.attempt,
        "category": program.category,
        "kernel_name": program.kernel_name,
        **source_columns(program.source),
        "arg_names": [a.name for a in program.args],
        "arg_types": program.arg_type_strings(),
        "arg_roles": program.arg_roles(),
        "arg_shapes": program.arg_shapes(),
        "launch_dims": len(program.launch_shape),
        "launch_shape": list(program.launch_shape),
        "block_dim": program.block_dim,
        "builtins": drawn.builtins,
        "warp_version": compilers.toolchain()["warp"],
        "generator_version": GENERATOR_VERSION,
        "normalized_sha256": drawn.normalized_sha256,
        "verify": opts.verify,
    }


def leave_out(opts: BuildOptions, split: str, index: int, kernel: str, reason: str, left_out: Counter) -> None:
    """A drawn program's row failed its evidence (``reason``): stop the build naming it (``--on-invalid error``),
    else count it in ``left_out`` under the reason's head (what precedes its first colon)."""
    if opts.on_invalid == "error":
        raise GeneratorBug(opts.seed, split, index, kernel, reason)
    left_out[reason.split(":")[0]] += 1
