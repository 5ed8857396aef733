"""Decontamination between the ``real`` config and the generated configs: exact and near duplicates.

Both sides are read with Python's own tokenizer so any shipped source can be read. Exact: equal source or equal
normalized form (identifiers by order of first appearance, literals as ``N``: what the generated splits are keyed
on; ``builder.grammar.normalize``). Near (``similarity``): the largest Jaccard similarity of three views of token
5-grams:

- identifiers renamed by order of first appearance, literals as ``N`` (the only view until package 4.8.0): a
  renamed identifier leaves it as it was, but one inserted name renumbers every later one (warp's two
  ``jacobi_iter``, equal but for ``@wp.kernel(enable_backward=False)``, scored 0.10 and straddled the splits);
- names kept as written, literals as ``N``: a decorator argument added, two statements swapped or a constant
  changed leave most 5-grams as they were;
- every identifier one class token ``ID``: a renamed parameter or local leaves every 5-gram as it was. Only for
  kernels of at least ``CLASS_MIN_TOKENS`` tokens, and only at ``CLASS_JACCARD`` or nearer: short kernels, and
  kernels of one template, share their shape by chance.

Candidates come from MinHash (datasketch) LSH over each view, confirmed with the exact value.
"""

from __future__ import annotations

import hashlib
import io
import tokenize
from collections.abc import Iterable
from dataclasses import dataclass, field

from builder.grammar.normalize import _normalize, builtins_in

_KINDS = {tokenize.NAME: "name", tokenize.NUMBER: "number", tokenize.STRING: "string", tokenize.OP: "op"}
SHINGLE = 5


def python_tokens(source: str) -> list[tuple[str, str]]:
    """``(kind, text)`` pairs as ``builder.grammar.normalize.tokens`` gives them, from Python's tokenizer."""
    out = []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type in _KINDS:
            out.append((_KINDS[tok.type], tok.string))
        elif tok.type == tokenize.NEWLINE:
            out.append(("newline", "\n"))
        elif tok.type == tokenize.INDENT:
            out.append(("indent", tok.string))
        elif tok.type == tokenize.DEDENT:
            out.append(("dedent", ""))
        elif tok.type == tokenize.ENDMARKER:
            out.append(("end", ""))
    return out


def normalized_tokens(source: str) -> list[str]:
    return _normalize(python_tokens(source), {}, "")[0]


def normalized_sha256(source: str) -> str:
    """Equal to ``normalize.normalized_sha256`` for generated programs; defined for any Python source."""
    return hashlib.sha256(" ".join(normalized_tokens(source)).encode()).hexdigest()


def builtins(source: str) -> list[str]:
    """``normalize.builtins_used`` for any Python source."""
    return builtins_in(python_tokens(source))


CLASS_MIN_TOKENS = 60  # tokens a kernel needs before its shape alone (every identifier one class) may match
# the shape alone matches only when nearly all of it is the same: at 0.8 it grouped kernels of one template that
# differ in what they compute (a 3-d scatter and a 4-d one, two copy kernels of different fields); a renamed
# parameter or local keeps it at 1.0
CLASS_JACCARD = 0.95


@dataclass(frozen=True)
class Shingles:
    """The two views of a source that ``similarity`` compares (``classed`` empty for a short source)."""

    named: frozenset[str]
    ordered: frozenset[str]
    classed: frozenset[str]

    @property
    def views(self) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
        return self.named, self.ordered, self.classed


def _grams(toks: list[str], k: int = SHINGLE) -> frozenset[str]:
    toks = [t for t in toks if t.strip()]
    return frozenset(" ".join(toks[i : i + k]) for i in range(max(1, len(toks) - k + 1)))


def shingles(source: str) -> Shingles:
    toks = python_tokens(source)
    classed = _normalize(toks, {}, "", identifiers="class")[0]
    long_enough = sum(1 for t in classed if t.strip()) >= CLASS_MIN_TOKENS
    return Shingles(
        _grams(_normalize(toks, {}, "", identifiers="keep")[0]),
        _grams(_normalize(toks, {}, "", identifiers="order")[0]),
        _grams(classed) if long_enough else frozenset(),
    )


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


def similarity(a: Shingles, b: Shingles) -> float:
    """How near two sources are: the Jaccard similarity of their token 5-grams with names kept or renamed by order
    of appearance, or of their shapes (identifiers as one class, long sources only) where that is at least
    ``CLASS_JACCARD``."""
    shape = _jaccard(a.classed, b.classed)
    return max(_jaccard(a.named, b.named), _jaccard(a.ordered, b.ordered), shape if shape >= CLASS_JACCARD else 0.0)


class NearIndex:
    """MinHash LSH over both views: ``query`` gives the keys that may be at ``threshold`` or nearer."""

    def __init__(self, threshold: float, num_perm: int = 128):
        from datasketch import MinHash, MinHashLSH

        self._minhash = lambda sh: _minhash(sh, num_perm, MinHash)
        self._lsh = tuple(MinHashLSH(threshold=threshold, num_perm=num_perm) for _ in Shingles.__dataclass_fields__)

    def insert(self, key: str, sh: Shingles) -> None:
        for lsh, view in zip(self._lsh, sh.views, strict=True):
            if view:
                lsh.insert(key, self._minhash(view))

    def query(self, sh: Shingles) -> set[str]:
        return {
            k for lsh, view in zip(self._lsh, sh.views, strict=True) if view for k in lsh.query(self._minhash(view))
        }


class Reference:
    """Sources a new text must not come near (``nearest``): equal, equal once normalized, or ``similarity`` at
    ``threshold`` or above."""

    def __init__(self, pairs: Iterable[tuple[str, str]], threshold: float, num_perm: int = 128):
        self.threshold = threshold
        self._src = _distinct(pairs)
        self._norm = {normalized_sha256(s): i for s, i in self._src.items()}
        self._index = NearIndex(threshold, num_perm)
        self._shingles = {}
        for s, i in self._src.items():
            self._shingles[i] = shingles(s)
            self._index.insert(i, self._shingles[i])

    def nearest(self, text: str) -> tuple[str, float] | None:
        """(id, similarity) of the nearest reference at the threshold or nearer, else None."""
        if text in self._src:
            return self._src[text], 1.0
        if (i := self._norm.get(normalized_sha256(text))) is not None:
            return i, 1.0
        mine = shingles(text)
        found = [(similarity(mine, self._shingles[i]), i) for i in sorted(self._index.query(mine))]
        best = max(((sim, i) for sim, i in found if sim >= self.threshold), default=None, key=lambda x: (x[0], x[1]))
        return (best[1], round(best[0], 4)) if best else None


@dataclass
class Report:
    real: int  # real sources compared
    synthetic: int
    exact_source: list[tuple[str, str]] = field(default_factory=list)  # (real id, synthetic id) pairs
    exact_normalized: list[tuple[str, str]] = field(default_factory=list)
    near: list[tuple[str, str, float]] = field(default_factory=list)  # (real id, synthetic id, Jaccard)

    @property
    def clean(self) -> bool:
        return not (self.exact_source or self.exact_normalized or self.near)


def decontaminate(
    real: Iterable[tuple[str, str]],
    synthetic: Iterable[tuple[str, str]],
    threshold: float = 0.8,
    num_perm: int = 128,
) -> Report:
    """Duplicates between ``(id, python_source)`` pairs of the real config and of the generated splits.

    Each distinct source is compared once (rows of one program share it); pairs are sorted, so the report does
    not depend on input order.
    """
    real_src = _distinct(real)
    syn_src = _distinct(synthetic)
    report = Report(len(real_src), len(syn_src))
    syn_by_sha = {hashlib.sha256(s.encode()).hexdigest(): i for s, i in syn_src.items()}
    syn_by_norm = {normalized_sha256(s): i for s, i in syn_src.items()}
    index = NearIndex(threshold, num_perm)
    syn_shingles = {}
    for s, i in syn_src.items():
        syn_shingles[i] = shingles(s)
        index.insert(i, syn_shingles[i])
    for s, i in real_src.items():
        if (j := syn_by_sha.get(hashlib.sha256(s.encode()).hexdigest())) is not None:
            report.exact_source.append((i, j))
        if (j := syn_by_norm.get(normalized_sha256(s))) is not None:
            report.exact_normalized.append((i, j))
        sh = shingles(s)
        for j in sorted(index.query(sh)):
            if (sim := similarity(sh, syn_shingles[j])) >= threshold:
                report.near.append((i, j, round(sim, 4)))
    report.exact_source.sort()
    report.exact_normalized.sort()
    report.near.sort()
    return report


def _distinct(pairs: Iterable[tuple[str, str]]) -> dict[str, str]:
    """source -> the smallest id that has it."""
    out: dict[str, str] = {}
    for i, s in pairs:
        if s not in out or i < out[s]:
            out[s] = i
    return out


def _minhash(sh: set[str], num_perm: int, cls):
    m = cls(num_perm=num_perm, seed=1)
    for x in sorted(sh):
        m.update(x.encode())
    return m
