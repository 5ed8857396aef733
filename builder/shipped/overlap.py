"""Decontamination between the ``real`` config and the generated configs: exact and near duplicates.

Both sides are compared in the normalized form the generated splits are keyed on (identifiers by order of first
appearance, literals as ``N``; ``builder.grammar.normalize``), read with Python's own tokenizer so any shipped
source can be read. Exact: equal source or equal normalized form. Near: MinHash (datasketch) estimates of the
Jaccard similarity of the normalized token 5-grams, candidates from LSH, confirmed with the exact Jaccard value.
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


def token_shingles(source: str, k: int = SHINGLE) -> set[str]:
    toks = [t for t in normalized_tokens(source) if t.strip()]
    return {" ".join(toks[i : i + k]) for i in range(max(1, len(toks) - k + 1))}


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
    from datasketch import MinHash, MinHashLSH

    real_src = _distinct(real)
    syn_src = _distinct(synthetic)
    report = Report(len(real_src), len(syn_src))
    syn_by_sha = {hashlib.sha256(s.encode()).hexdigest(): i for s, i in syn_src.items()}
    syn_by_norm = {normalized_sha256(s): i for s, i in syn_src.items()}
    lsh = MinHashLSH(threshold=threshold, num_perm=num_perm)
    syn_shingles = {}
    for s, i in syn_src.items():
        sh = token_shingles(s)
        syn_shingles[i] = sh
        lsh.insert(i, _minhash(sh, num_perm, MinHash))
    for s, i in real_src.items():
        if (j := syn_by_sha.get(hashlib.sha256(s.encode()).hexdigest())) is not None:
            report.exact_source.append((i, j))
        if (j := syn_by_norm.get(normalized_sha256(s))) is not None:
            report.exact_normalized.append((i, j))
        sh = token_shingles(s)
        for j in lsh.query(_minhash(sh, num_perm, MinHash)):
            jac = len(sh & syn_shingles[j]) / len(sh | syn_shingles[j])
            if jac >= threshold:
                report.near.append((i, j, round(jac, 4)))
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
