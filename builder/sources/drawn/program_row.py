"""The columns every row of a drawn program has, whichever config pairs the program with what."""

from __future__ import annotations

from builder import GENERATOR_VERSION
from builder.config import BuildOptions
from builder.grammar.sample import Drawn
from builder.sources.columns import source_columns
from builder.warp_backend import compilers


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
