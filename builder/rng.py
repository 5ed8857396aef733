"""The one place random streams are derived.

Every random choice in the project comes from a ``random.Random`` seeded here
from a SHA-256 of its coordinates, so a row can be regenerated alone and the
stream never depends on ``hash()`` randomisation, process count or platform.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from typing import Any

# a row's coordinates are (seed, split, index): the split names are part of the derivation
SPLITS = ("train", "validation", "test")


def stable_int(*parts: object, bits: int = 64) -> int:
    """An integer digest of ``parts`` that is identical on every machine."""
    text = "\x1f".join(repr(p) if not isinstance(p, str) else p for p in parts)
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return int.from_bytes(digest[: bits // 8], "big")


def derive_rng(*parts: object) -> random.Random:
    """A private RNG for the coordinates ``parts`` (e.g. seed, split, index, attempt)."""
    return random.Random(stable_int(*parts))


def choose(rng: random.Random, options: list[tuple[float, Any]]) -> Any:
    """Weighted choice among options whose weight is positive (list order is the tie-break)."""
    live = [(w, f) for w, f in options if w > 0]
    r = rng.random() * sum(w for w, _ in live)
    for w, f in live:
        r -= w
        if r <= 0:
            return f
    return live[-1][1]


def pick(rng: random.Random, options: list[tuple[float, Callable[[], Any]]]) -> Any:
    """Run the producer ``choose`` picks."""
    return choose(rng, options)()
