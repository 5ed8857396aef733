"""Small choices every composite producer makes: which operand varies, which types exist, a constructor's name."""

from __future__ import annotations

from builder.grammar.producer import Producer
from builder.grammar.wtypes import E, WType


def split_vary(g: Producer, vary: bool) -> tuple[bool, bool]:
    """(left varies, right varies) for a binary expression that must vary: one operand carries it."""
    if not vary:
        return False, False
    return (True, False) if g.rng.random() < g.p.odds.vary_left else (False, True)


def has_type(g: Producer, t: WType) -> bool:
    return t in g.p.types()


def ctor_name(g: Producer, t: WType) -> str:
    """The constructor's name: Warp's float32 types also go by their suffixed aliases (wp.vec3f, wp.mat22f)."""
    return f"{t.spelling}f" if g.rng.random() < g.p.suffixed else t.spelling


def same_inputs(g: Producer, a: E, b: E) -> bool:
    atoms = g.k.atoms(a.code)
    return bool(atoms) and atoms == g.k.atoms(b.code)
