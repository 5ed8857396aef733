"""The judge of realism: how easily a linear classifier tells one corpus of Warp kernels from another.

A corpus is a list of kernel texts: each ``@wp.kernel`` function (decorators, signature, docstring, comments and
body) cut out of its file, never imported. The real projects are the parts of the packages the ``real`` config
collects (``builder.shipped.packages``: warp-lang's examples, library and tests, and every other package whole);
the generated corpus is the kernels of generated programs, cut out the same way, so both sides are the same kind
of text.

The test: tokens (Python's tokenizer) with identifiers, numbers and strings normalized, so a project's names and
constants cannot give it away, while its keywords, operators, layout (newlines, indents, comments, docstrings) and
the Warp API it calls (``wp.<name>``, Python builtins such as ``range``) stay; TF-IDF over 1-3-grams; logistic
regression; stratified 5-fold cross-validation over equal counts of each side (the larger side subsampled with the
seed); the ROC AUC over the held-out predictions. 0.5 means the two cannot be told apart, 1.0 always.

The target is relative: real projects differ from each other too (warp-lang's tests from newton's physics), so
the generated corpus should be no easier to tell from a project P than the other real projects are:
``AUC(generated, P) <= median over Q != P of AUC(Q, P)`` (the median, so one very distinctive project cannot make
every target easy).
"""

from __future__ import annotations

import ast
import io
import keyword
import random
import statistics
import textwrap
import tokenize
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from builder.analysis.features import builtin_calls
from builder.analysis.kernels import WARP_MODULES, is_kernel, is_stub, warp_functions

FOLDS = 5
MAX_PER_SIDE = 1000  # kernels per side at most: the test's cost grows with it, its answer barely moves past this
MIN_PER_SIDE = 20  # fewer kernels than this and five folds say nothing
# what of a kernel the test reads: all of it, or (to say where two corpora differ) only the decorators and signature
# up to the ``:`` that ends it, or only what follows (docstring, comments and statements)
PARTS = ("whole", "signature", "body")
# names kept as themselves: Python builtins a kernel calls, and what follows ``wp.`` (handled by the tokenizer pass)
VECTOR_ATTRS = frozenset({"x", "y", "z", "w", "shape", "ndim", "size", "dtype"})
KEPT_NAMES = frozenset({"wp", "warp", "range", "len", "int", "float", "bool", "min", "max", "abs", "print", "self"})


def kernel_texts(source: str) -> list[str]:
    """Every ``@wp.kernel`` function of a module's source that has a body, dedented, decorators included."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    lines = source.splitlines()
    out = []
    for fn, kind in warp_functions(tree):
        if not is_kernel(kind) or is_stub(fn):
            continue
        first = min([fn.lineno, *(d.lineno for d in fn.decorator_list)])
        out.append(textwrap.dedent("\n".join(lines[first - 1 : fn.end_lineno])) + "\n")
    return out


def normalized(text: str, part: str = "whole") -> str:
    """The kernel as space-separated tokens: identifiers ``ID`` (Warp's API, keywords and a few Python builtins kept),
    numbers ``NUM``, strings ``STR`` (docstrings included), comments ``COMMENT``, line ends ``NL``, indents; of
    ``part`` of it (``PARTS``)."""
    if part not in PARTS:
        raise ValueError(f"unknown part {part!r}; valid: {', '.join(PARTS)}")
    out: list[str] = []
    depth, end, seen_def = 0, None, False  # bracket depth; where the signature ends (its ``:`` outside brackets)
    after_wp = False
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            kind, s = tok.type, tok.string
            if kind == tokenize.NAME:
                kept = after_wp or keyword.iskeyword(s) or s in KEPT_NAMES
                out.append(s if kept else "ID")
                seen_def = seen_def or s == "def"
            elif kind == tokenize.NUMBER:
                out.append("NUM")
            elif kind == tokenize.STRING:
                out.append("STR")
            elif kind == tokenize.COMMENT:
                out.append("COMMENT")
            elif kind in (tokenize.NEWLINE, tokenize.NL):
                out.append("NL")
            elif kind == tokenize.INDENT:
                out.append("INDENT")
            elif kind == tokenize.DEDENT:
                out.append("DEDENT")
            elif kind == tokenize.OP:
                out.append(s)
                depth += (s in "([{") - (s in ")]}")
                if s == ":" and depth == 0 and end is None and seen_def:
                    end = len(out)
            after_wp = kind == tokenize.OP and s == "." and len(out) >= 2 and out[-2] in ("wp", "warp")
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    if part != "whole":
        cut = len(out) if end is None else end
        out = out[:cut] if part == "signature" else out[cut:]
    return " ".join(out)


def _equal_sample(items: Sequence[str], n: int, rng: random.Random) -> list[str]:
    return list(items) if len(items) <= n else rng.sample(list(items), n)


def auc(a: Sequence[str], b: Sequence[str], seed: int = 0, part: str = "whole") -> float:
    """ROC AUC of telling kernel texts ``a`` from ``b`` (see the module's doc) from ``part`` of each kernel; needs
    scikit-learn."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import StratifiedKFold, cross_val_predict
    from sklearn.pipeline import make_pipeline

    n = min(len(a), len(b), MAX_PER_SIDE)
    if n < MIN_PER_SIDE:
        raise ValueError(f"the judge needs at least {MIN_PER_SIDE} kernels a side, got {len(a)} and {len(b)}")
    rng = random.Random(seed)
    x = [normalized(t, part) for t in _equal_sample(a, n, rng)] + [
        normalized(t, part) for t in _equal_sample(b, n, rng)
    ]
    y = [0] * n + [1] * n
    model = make_pipeline(
        TfidfVectorizer(token_pattern=r"\S+", lowercase=False, ngram_range=(1, 3), sublinear_tf=True, min_df=2),
        LogisticRegression(max_iter=2000, C=1.0),
    )
    folds = StratifiedKFold(FOLDS, shuffle=True, random_state=seed)
    p = cross_val_predict(model, x, y, cv=folds, method="predict_proba")[:, 1]
    return float(roc_auc_score(y, p))


@dataclass(frozen=True)
class Verdict:
    project: str
    kernels: int
    generated: float  # AUC(generated, project)
    others: dict[str, float]  # AUC(Q, project) for every other real project Q

    @property
    def median_others(self) -> float:
        return statistics.median(self.others.values())

    @property
    def margin(self) -> float:
        """How much stranger the other real projects are to this one than the generated kernels (>= 0 passes)."""
        return self.median_others - self.generated

    @property
    def passes(self) -> bool:
        return self.generated <= self.median_others


def judge(
    generated: Sequence[str], real: dict[str, Sequence[str]], seed: int = 0, part: str = "whole"
) -> list[Verdict]:
    """For each real project: AUC against the generated kernels and against every other real project, from
    ``part`` of each kernel."""
    usable = {k: v for k, v in real.items() if len(v) >= MIN_PER_SIDE}
    pair: dict[frozenset[str], float] = {}
    for p in usable:
        for q in usable:
            if p < q:
                pair[frozenset((p, q))] = auc(usable[p], usable[q], seed, part)
    return [
        Verdict(
            p,
            len(usable[p]),
            auc(generated, usable[p], seed, part),
            {q: pair[frozenset((p, q))] for q in usable if q != p},
        )
        for p in usable
    ]


def seeds_table(by_seed: dict[int, list[Verdict]]) -> str:
    """Each project's margin (median AUC(Q, P) minus AUC(generated, P)) on each seed, its mean, and on how many seeds
    it passes. One seed's margin moves with its draw of kernels and folds, by about 0.001 for a project of a few
    hundred kernels, so a margin that small says little alone."""
    seeds = list(by_seed)
    projects = [v.project for v in by_seed[seeds[0]]]
    lines = [
        "| project | " + " | ".join(f"seed {s}" for s in seeds) + " | mean | passes |",
        "|---|" + "---:|" * (len(seeds) + 2),
    ]
    for p in projects:
        margins = [next(v for v in by_seed[s] if v.project == p).margin for s in seeds]
        passed = sum(m >= 0 for m in margins)
        cells = " | ".join(f"{m:+.5f}" for m in margins)
        lines.append(f"| {p} | {cells} | {statistics.mean(margins):+.5f} | {passed} of {len(seeds)} |")
    return "\n".join(lines)


def table(verdicts: Iterable[Verdict], label: str) -> str:
    lines = [
        f"| project | kernels | AUC({label}, P) | median AUC(Q, P) | no stranger |",
        "|---|---:|---:|---:|---|",
    ]
    for v in verdicts:
        verdict = "yes" if v.passes else "no"
        lines.append(f"| {v.project} | {v.kernels:,} | {v.generated:.3f} | {v.median_others:.3f} | {verdict} |")
    return "\n".join(lines)


def _calls(fn: ast.AST) -> Iterable[ast.Call]:
    return (n for n in ast.walk(fn) if isinstance(n, ast.Call))


def _is_wp(node: ast.expr) -> bool:
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in WARP_MODULES


def style(texts: Sequence[str]) -> dict[str, float]:
    """Shares a reader can check, over kernel texts: the cues that tell generated kernels from written ones."""
    lines, per_line, names = [], [], []
    counts = dict.fromkeys(
        ("docstring", "comment", "attribute_chain", "helper_call", "tile", "early_return", "index_0"), 0
    )
    parsed = 0
    for text in texts:
        try:
            fn = ast.parse(text).body[0]
        except (SyntaxError, IndexError):
            continue
        if not isinstance(fn, ast.FunctionDef):
            continue
        parsed += 1
        body = [ln for ln in text.splitlines() if ln.strip()]
        lines.append(len(body))
        params = [a.arg for a in fn.args.args]
        head_lines = fn.body[0].lineno - fn.lineno if fn.body else 1
        per_line.append(len(params) / max(1, head_lines))
        assigned = {
            t.id for n in ast.walk(fn) if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)
        }
        names += [len(n) for n in (*params, *assigned)]
        first = fn.body[0] if fn.body else None
        counts["docstring"] += isinstance(first, ast.Expr) and isinstance(getattr(first, "value", None), ast.Constant)
        counts["comment"] += any(t.type == tokenize.COMMENT for t in _tokens(text))
        # a parameter's field (``model.body_q``, ``state.q[i]``): struct use; vector components and .shape are not
        counts["attribute_chain"] += any(
            isinstance(n, ast.Attribute)
            and isinstance(n.value, ast.Name)
            and n.value.id in params
            and n.attr not in VECTOR_ATTRS
            for n in ast.walk(fn)
        )
        counts["helper_call"] += any(isinstance(c.func, ast.Name) and c.func.id not in KEPT_NAMES for c in _calls(fn))
        counts["tile"] += any(_is_wp(c.func) and c.func.attr.startswith("tile") for c in _calls(fn))
        counts["early_return"] += any(isinstance(n, ast.Return) for n in ast.walk(fn))
        counts["index_0"] += any(
            isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Constant) and n.slice.value == 0
            for n in ast.walk(fn)
        )
    out: dict[str, float] = {"kernels": parsed}
    if not parsed:
        return out
    out["median_lines"] = float(statistics.median(lines))
    out["parameters_per_signature_line"] = statistics.fmean(per_line)
    out["median_name_length"] = float(statistics.median(names)) if names else 0.0
    out.update({f"{k}_share": v / parsed for k, v in counts.items()})
    return out


def _tokens(text: str) -> list[tokenize.TokenInfo]:
    try:
        return list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return []


def builtins_used(texts: Iterable[str]) -> dict[str, int]:
    """How often each ``wp.<name>(...)`` is called in the kernel texts' bodies (``features.builtin_calls``)."""
    counts: Counter[str] = Counter()
    for text in texts:
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        counts += builtin_calls([fn for fn in tree.body if isinstance(fn, ast.FunctionDef)])
    return dict(counts)


def missing_builtins(
    generated: Iterable[str], real: dict[str, list[str]]
) -> tuple[list[tuple[int, str]], dict[str, int]]:
    """The builtins the real projects call and the generated kernels never do, as ``(call sites, name)`` most used
    first, and the call sites of every builtin the real projects call (what the missing ones are a share of)."""
    used = builtins_used(generated)
    weights: dict[str, int] = {}
    for texts in real.values():
        for name, n in builtins_used(texts).items():
            weights[name] = weights.get(name, 0) + n
    return sorted(((n, b) for b, n in weights.items() if b not in used), reverse=True), weights
