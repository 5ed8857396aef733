"""The generated corpus as the realism measures read it, from the seed alone (no build), and corpora of files.

The style table (``realism_table``) reads each row's program without its sibling kernels (``generated_corpus``:
``Program.own_module``, helpers and structs included); the classifier (``judge``) reads each row's own kernel text
(``generated_kernels``: the last kernel of its module). Both read train rows ``0..rows-1`` of a seed with every
category, as the default build draws them.
"""

from __future__ import annotations

import glob
from pathlib import Path

from builder.analysis import judge
from builder.analysis.realism import Corpus
from builder.grammar.policy import CATEGORIES
from builder.grammar.sample import sample


def generated_corpus(rows: int, seed: int) -> tuple[Corpus, int]:
    """Train rows ``0..rows-1`` of ``seed`` as one corpus (each row's module without its siblings), and how many
    distinct normalized programs they are."""
    corpus, shapes = Corpus("generated", whole=True), set()
    for index in range(rows):
        drawn = sample(seed, "train", index, CATEGORIES)
        corpus.add(drawn.program.own_module)
        shapes.add(drawn.normalized_sha256)
    return corpus, len(shapes)


def generated_kernels(seed: int, rows: int) -> list[str]:
    """Each train row's own kernel, the last of its module. A module may hold sibling kernels before it
    (``grammar.siblings``), drawn by the same grammar; reading them too would give the classifier two to three
    times the generated kernels against the large projects that judged generator 4.4.0 (the test takes equal
    counts from both sides), so one seed's figures would not compare with another version's."""
    return [
        text
        for index in range(rows)
        for text in judge.kernel_texts(sample(seed, "train", index, CATEGORIES).program.source)[-1:]
    ]


def files_corpus(pattern: str) -> Corpus:
    """The Python files matching ``pattern`` (recursive ``**`` allowed), each one program."""
    paths = sorted(glob.glob(pattern, recursive=True))
    if not paths:
        raise FileNotFoundError(f"--source-glob matched no files: {pattern!r}")
    return Corpus("files", whole=True).add_all(Path(p).read_text(encoding="utf-8", errors="replace") for p in paths)
