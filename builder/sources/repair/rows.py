"""Rows of the ``repair`` config: the program drawn for (seed, split, index), as every generated config draws it,
broken by one seeded edit (``builder.repair.mutations``) that Warp rejects, with what Warp said.

The edits are tried in the order ``candidates`` draws from (seed, split, index, "repair"); the first whose
kernel Warp's code generator rejects (``codegen.emit`` for the CPU, as a user's ``wp.launch`` or
``Module.load`` generates it) is the row's, with the diagnostic Warp raised for it. The working kernel's evidence
is the cpu config's (``verify.verify`` for the cpu unit with the same inputs seed), so a repair row's
``output_checksum`` is the one its ``fixed_id`` row holds; a program whose evidence fails is left out for the
reason the cpu config leaves it out, and one that no edit breaks (none Warp rejects) is left out and counted.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from builder import GENERATOR_VERSION
from builder.build_options import BuildOptions
from builder.configs import spec
from builder.grammar.sample import Drawn, sample
from builder.repair import Broken, fixed_id, repair_columns
from builder.schema import project
from builder.sources.columns import source_columns

CHUNK = 64  # programs whose working kernels are built and run together (as generated rows are)
NO_EDIT = "no edit Warp rejects"


def repair_rows(opts: BuildOptions, split: str, start: int, stop: int, left_out: Counter) -> Iterator[dict]:
    """Rows ``start..stop-1`` of ``split``: each program broken, and its working kernel's evidence gathered."""
    from builder.sources.drawn.program_row import leave_out, program_fields, row_label
    from builder.sources.drawn.records import evidence_fields, invalid_reason
    from builder.warp_backend import verify
    from builder.warp_backend.diagnose import first_rejected

    cache = verify.EvidenceCache(opts.evidence_dir) if opts.verify != "none" else None
    for lo in range(start, stop, CHUNK):
        made: list[tuple[int, Drawn, Broken]] = []
        for index in range(lo, min(lo + CHUNK, stop)):
            drawn = sample(opts.seed, split, index, opts.categories)
            program = drawn.program
            found = first_rejected(opts.seed, split, index, program.source, program.kernel_name, program.block_dim)
            if found is None:
                left_out[NO_EDIT] += 1
                continue
            made.append((index, drawn, found))
        items = [
            verify.Item(row_label(opts.seed, split, i), d.program, "", verify.input_seed(opts.seed, split, i))
            for i, d, _ in made
        ]
        if cache is not None:
            verify.verify(items, spec(opts.config).single_unit, opts.verify, cache, batch_size=CHUNK)
        for (index, drawn, found), item in zip(made, items):
            reason = invalid_reason(opts, item, gpu=False)
            if reason:
                leave_out(opts, split, index, drawn.program.kernel_name, reason, left_out)
                continue
            row = program_fields(opts, opts.config, split, index, drawn)  # the columns every drawn row has
            row |= repair_columns(drawn.program.source, found, fixed_id(opts.config, opts.seed, split, index))
            row |= evidence_fields(item.evidence, "cpu")  # what the cpu config's row of the program holds
            yield project(row, opts.config)


def written_repair_rows(opts: BuildOptions, start: int, stop: int, left_out: Counter) -> Iterator[dict]:
    """Rows of real's train kernels ``start..stop-1`` (``derived.rows.source_kernels``: the list derived varies):
    kernel ``k`` gives row ``k``. A row carries its real row's licence, attribution and compile evidence."""
    from builder.errors import WarpRejected
    from builder.shipped.overlap import builtins, normalized_sha256
    from builder.sources.derived.rows import source_kernels
    from builder.warp_backend import compilers
    from builder.warp_backend.diagnose import first_rejected_written

    for index, src in enumerate(source_kernels(opts.real_data, opts.derived_kernels)[start:stop], start):
        try:
            found = first_rejected_written(opts.seed, src["id"], src["python_source"], src["kernel_name"])
        except WarpRejected as exc:
            left_out[f"Warp rejects the working kernel here: {exc.message.split(':')[0]}"] += 1
            continue
        if found is None:
            left_out[NO_EDIT] += 1
            continue
        row = {
            **{c: src[c] for c in ("kernel_name", "category", "arg_names", "arg_types", "verify", "compiled")},
            **{c: src[c] for c in ("compile_target", "toolchain", "source_path", "package", "package_version")},
            **{c: src[c] for c in ("license", "copyright", "qualified_name")},
            "id": f"{opts.config}/train/{opts.seed}/{index}",
            "config": opts.config,
            "seed": opts.seed,
            "split": "train",
            "index": index,
            **source_columns(src["python_source"]),
            **repair_columns(src["python_source"], found, src["id"]),
            "builtins": builtins(src["python_source"]),
            "warp_version": compilers.toolchain()["warp"],
            "generator_version": GENERATOR_VERSION,
            "normalized_sha256": normalized_sha256(src["python_source"]),
        }
        yield project(row, opts.config)
