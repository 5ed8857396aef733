"""The program of row (seed, split, index): drawn without Warp, deterministic, in its split's partition.

Split membership is a property of the program, not of the index: a candidate drawn for (seed, split, index,
attempt) is kept only if the hash of its normalized form falls in that split's partition, so no normalized
program can appear in two splits. A candidate that misses redraws only the program's stores (its last lines), not
the whole program. Everything that needs a row's program (the build, validation, evaluation, the scripts) draws
it here; nothing here imports Warp.
"""

from __future__ import annotations

from typing import NamedTuple

from builder.errors import GeneratorBug
from builder.grammar.generator import draft, in_module
from builder.grammar.normalize import Normalizer, builtins_in
from builder.grammar.program import Program
from builder.rng import SPLITS, derive_rng

# Store redraws per draft, then a new draft. A draft's candidates share its head, so they are not independent
# (a draft whose stores admit few normalized forms can miss all 8); the drafts are. In a 2,000-program build
# the most any row needed was 19 candidates, its third draft.
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
        body = draft(rng, category)
        head = Normalizer().feed(body.head)  # tokenized and hashed once for all its endings
        for s in range(STORE_DRAWS):
            stream = rng if s == 0 else derive_rng(seed, split, index, d, s)
            program = body.finish(stream)
            # the key is the program alone: a row whose kernel another split holds under other siblings would
            # still be that kernel; the kept one is then written in its module (generator.in_module)
            whole = head.copy().feed(program.source[len(body.head) :])
            nsha = whole.hexdigest()
            if int(nsha[:8], 16) % len(SPLITS) == part:
                return Drawn(in_module(program, stream), d * STORE_DRAWS + s, nsha, builtins_in(whole.tokens()))
    raise GeneratorBug(seed, split, index, "?", f"no program in partition after {MAX_DRAFTS * STORE_DRAWS} candidates")
