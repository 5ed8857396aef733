"""Identifier vocabularies, so generated kernels read like kernels people write.

The words are data (``words.json``, read once at import): stems by value type, argument, output, parameter and
accumulator names, verbs and nouns of kernel names, helper, struct and field names, and (generator 4.4.0) the
domains, modifiers and frames compound names are made of. This module holds how they are drawn. Their order is
part of the generator: a draw picks by index, so reordering a list changes every program a seed gives.
"""

from __future__ import annotations

import json
import random
from importlib import resources

from builder.grammar.odds import Odds
from builder.grammar.wtypes import WType

_WORDS = json.loads(resources.files("builder.grammar").joinpath("words.json").read_text(encoding="utf-8"))

SCALAR_STEMS: tuple[str, ...] = tuple(_WORDS["SCALAR_STEMS"])
INT_STEMS: tuple[str, ...] = tuple(_WORDS["INT_STEMS"])
VEC_STEMS: tuple[str, ...] = tuple(_WORDS["VEC_STEMS"])
MAT_STEMS: tuple[str, ...] = tuple(_WORDS["MAT_STEMS"])
QUAT_STEMS: tuple[str, ...] = tuple(_WORDS["QUAT_STEMS"])
XFORM_STEMS: tuple[str, ...] = tuple(_WORDS["XFORM_STEMS"])
ACC_STEMS: tuple[str, ...] = tuple(_WORDS["ACC_STEMS"])
INPUT_NAMES: tuple[str, ...] = tuple(_WORDS["INPUT_NAMES"])
OUTPUT_NAMES: tuple[str, ...] = tuple(_WORDS["OUTPUT_NAMES"])
ACC_NAMES: tuple[str, ...] = tuple(_WORDS["ACC_NAMES"])
PARAM_NAMES: tuple[str, ...] = tuple(_WORDS["PARAM_NAMES"])
VERBS: tuple[str, ...] = tuple(_WORDS["VERBS"])
NOUNS: tuple[str, ...] = tuple(_WORDS["NOUNS"])
FUNC_NAMES: tuple[str, ...] = tuple(_WORDS["FUNC_NAMES"])
STRUCT_NAMES: tuple[str, ...] = tuple(_WORDS["STRUCT_NAMES"])
FIELD_NAMES: tuple[str, ...] = tuple(_WORDS["FIELD_NAMES"])
# Array, parameter and output names by value kind: "f" float, "v" vector, "m" matrix, "q" quaternion,
# "x" transform, "i" integer ("pos": a positive float parameter).
ARRAYS: dict[str, tuple[str, ...]] = {k: tuple(v) for k, v in _WORDS["ARRAYS"].items()}
OUTPUTS: dict[str, tuple[str, ...]] = {k: tuple(v) for k, v in _WORDS["OUTPUTS"].items()}
PARAMS: dict[str, tuple[str, ...]] = {k: tuple(v) for k, v in _WORDS["PARAMS"].items()}
# Generator 4.4.0: what a kernel's data is about. Simulation code names its arrays after the thing they describe
# (a body's pose, a contact's normal, a particle's radius): most parameter names in physics projects are compound
# and come from a far larger vocabulary than the stems above (in newton, 78% of parameter names hold an
# underscore, 12 characters on average, 5,552 distinct among 19,607; the stems above give 359). A kernel that has
# a domain names most of its arguments after it, so a name is known only from the kernel's own signature, as in
# code people write. The words are generic simulation, graphics and numerics vocabulary, not taken from any
# project the dataset scores against (tests/grammar/test_heldout_words.py).
DOMAINS: tuple[str, ...] = tuple(_WORDS["DOMAINS"])
MODIFIERS: tuple[str, ...] = tuple(_WORDS["MODIFIERS"])
# the frames a local's value is expressed in, as rigid-body code suffixes them (a point in world frame, a
# transform from body to world)
FRAMES: tuple[str, ...] = tuple(_WORDS["FRAMES"])


def stem_for(rng: random.Random, t: WType, accumulator: bool = False) -> str:
    if accumulator:
        return rng.choice(ACC_STEMS)
    table = {"vec": VEC_STEMS, "mat": MAT_STEMS, "quat": QUAT_STEMS, "transform": XFORM_STEMS}
    if t.kind in table:
        return rng.choice(table[t.kind])
    return rng.choice(INT_STEMS if t.is_int else SCALAR_STEMS)


def kernel_name(rng: random.Random) -> str:
    return f"{rng.choice(VERBS)}_{rng.choice(NOUNS)}"


KIND_OF = {"vec": "v", "mat": "m", "quat": "q", "transform": "x"}


def kind(t: WType) -> str:
    if t.kind == "scalar":
        return "i" if t.is_int else "f"
    return KIND_OF.get(t.kind, "f")


class Namer:
    """The names a kernel gives beyond a stem: a domain its arguments are named after, a modifier, a frame.

    It draws from a stream of its own (``KernelCtx`` derives it from the program's stream by a stable hash), so
    a name never shifts a structural draw: a generator that names differently draws the same programs, and the
    normalized form, which numbers identifiers, is the same.
    """

    def __init__(self, rng: random.Random, odds: Odds):
        self.rng, self.odds = rng, odds
        self.domain = rng.choice(DOMAINS) if rng.random() < odds.qualified_names else ""

    def _word(self, stem: str) -> str:
        word = self.domain if self.rng.random() < self.odds.domain_repeat else self.rng.choice(DOMAINS)
        return "" if stem == word or stem.startswith(word + "_") else word + "_"

    def argument(self, stem: str) -> str:
        """An array argument drawn from a pool of stems."""
        if self.domain and self.rng.random() < self.odds.qualified_argument:
            stem = self._word(stem) + stem
        if self.rng.random() < self.odds.name_modifier:
            stem = f"{stem}_{self.rng.choice(MODIFIERS)}"
        return stem

    def parameter(self, stem: str) -> str:
        """A uniform: fewer are about one kind of thing (a time step, a gravity)."""
        if self.domain and self.rng.random() < self.odds.qualified_param:
            return self._word(stem) + stem
        return stem

    def local(self, stem: str) -> str:
        """A computed local: named after the domain, or suffixed with the frame it is expressed in."""
        if not self.domain or self.rng.random() >= self.odds.qualified_local:
            return stem
        if self.rng.random() < self.odds.local_frame:
            return f"{stem}_{self.rng.choice(FRAMES)}"
        return self._word(stem) + stem

    def kernel(self, name: str) -> str:
        """``verb_noun`` -> ``verb_domain_noun``."""
        if not self.domain or self.rng.random() >= self.odds.qualified_kernel:
            return name
        verb, _, noun = name.partition("_")
        return f"{verb}_{self.domain}_{noun}" if noun and self.domain != noun else name
