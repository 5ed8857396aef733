"""Kernels derived from written code: seeded transformations of ``real``'s train kernels (``transforms``), which
Warp then labels like every other row (``builder.sources.derived``). Pure Python: nothing here imports Warp.

A variant is a pure function of (seed, source kernel, variant number): its RNG comes from ``builder.rng`` with
those coordinates, each kind of transformation is tried with the policy's probability (at least one that applies
is always made), in ``transforms.KINDS`` order, and the kinds that changed the source are listed on the row.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from builder.derive.transforms import KINDS
from builder.errors import ConfigError
from builder.rng import derive_rng

NAMES_FILE = Path(__file__).with_name(
    "names.json"
)  # identifiers of real's train kernels (python -m builder.derive.vocab)


@dataclass(frozen=True)
class DerivePolicy:
    """How variants are drawn: the chance each kind is tried (independently; a draw of none tries one kind that
    applies), and how many draws a variant may take before the kernel is given up on (every kind it drew left it
    unchanged, or it equalled an earlier variant)."""

    # precision is tried less: Warp rejected most of its variants on a sample of real train (a module constant, a
    # struct field or a helper's argument stays float32 where the kernel's values became float64)
    chances: tuple[tuple[str, float], ...] = tuple((k, 0.2 if k == "precision" else 0.5) for k in KINDS)
    attempts: int = 4

    def __post_init__(self) -> None:
        if [k for k, _ in self.chances] != list(KINDS) or not all(0 < p <= 1 for _, p in self.chances):
            raise ConfigError(f"chances must give each of {', '.join(KINDS)} a chance in (0, 1], got {self.chances}")
        if not isinstance(self.attempts, int) or self.attempts < 1:
            raise ConfigError(f"attempts must be a positive integer, got {self.attempts!r}")


POLICY = DerivePolicy()


@dataclass(frozen=True)
class Variant:
    number: int  # the variant's number for its source kernel (0, 1, ...)
    python_source: str
    transforms: tuple[str, ...]  # the kinds applied, in the order applied


@cache
def vocabulary() -> dict[str, list[str]]:
    return json.loads(NAMES_FILE.read_text())


def applicable(source: str, kernel_name: str) -> tuple[str, ...]:
    """The kinds that change this kernel (tried with a fixed RNG; a kind's applicability does not depend on it)."""
    out = []
    for kind, transform in KINDS.items():
        try:
            if transform(source, kernel_name, derive_rng("applicable", kind), vocabulary()) not in (None, source):
                out.append(kind)
        except (SyntaxError, ValueError):
            continue
    return tuple(out)


def variants(
    seed: int, key: str, source: str, kernel_name: str, n: int, policy: DerivePolicy = POLICY
) -> list[Variant]:
    """Up to ``n`` distinct variants of the kernel ``kernel_name`` of ``source``; ``key`` names the source kernel
    (its row id), so the same seed gives the same variants in any build of any size."""
    kinds = applicable(source, kernel_name)
    if not kinds:
        return []
    seen, out = {source}, []
    for number in range(n):
        for attempt in range(policy.attempts):
            rng = derive_rng(seed, "train", "derived", key, number, attempt)
            chance = dict(policy.chances)
            chosen = [k for k in kinds if rng.random() < chance[k]] or [rng.choice(kinds)]
            text, applied = source, []
            for kind in chosen:
                try:
                    changed = KINDS[kind](text, kernel_name, rng, vocabulary())
                except (SyntaxError, ValueError):
                    changed = None
                if changed is not None and changed != text:
                    text, applied = changed, applied + [kind]
            if text not in seen:
                seen.add(text)
                out.append(Variant(number, text, tuple(applied)))
                break
    return out
