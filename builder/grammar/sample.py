"""The program of row (seed, split, index): drawn without Warp, deterministic, in its split's partition.

Split membership is a property of the program, not of the index: a candidate drawn for (seed, split, index,
attempt) is kept only if the hash of its normalized form falls in that split's partition, so no normalized
program can appear in two splits. A candidate that misses is drawn again from the next stream of the row.
Everything that needs a row's program (the build, validation, evaluation, the scripts) draws
it here; nothing here imports Warp.
"""

from __future__ import annotations

from typing import NamedTuple

from builder.errors import GeneratorBug
from builder.grammar.generator import alone, in_module
from builder.grammar.normalize import Normalizer, builtins_in
from builder.grammar.program import Program
from builder.rng import SPLITS, derive_rng

# The candidates of a row, in order: stream (seed, split, index, d) and then (seed, split, index, d, s) for
# s = 1..7, for d = 0..15. (Until generator 4.0 a candidate redrew only the stores of a shared head; the streams
# kept their numbering, so every row is the same program.) In a 2,000-program build the most any row needed was
# 19 candidates.
STORE_DRAWS = 8
MAX_DRAFTS = 16


class Drawn(NamedTuple):
    program: Program
    attempt: int  # candidates drawn before this one
    normalized_sha256: str
    builtins: list[str]  # normalize.builtins_used of its source, from the tokens the hash already read


def sample(seed: int, split: str, index: int, categories: tuple[str, ...]) -> Drawn:
    """The program for row (seed, split, index): deterministic, and in this split's partition."""
    category = categories[index % len(categories)]
    part = SPLITS.index(split)
    for d in range(MAX_DRAFTS):
        rng = derive_rng(seed, split, index, d)
        for s in range(STORE_DRAWS):
            stream = rng if s == 0 else derive_rng(seed, split, index, d, s)
            program = alone(stream, category)
            # the key is the program alone: a row whose kernel another split holds under other siblings would
            # still be that kernel; the kept one is then written in its module (generator.in_module)
            whole = Normalizer().feed(program.source)
            nsha = whole.hexdigest()
            if int(nsha[:8], 16) % len(SPLITS) == part:
                return Drawn(in_module(program, stream), d * STORE_DRAWS + s, nsha, builtins_in(whole.tokens()))
    raise GeneratorBug(seed, split, index, "?", f"no program in partition after {MAX_DRAFTS * STORE_DRAWS} candidates")
