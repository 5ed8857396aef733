"""A byte-level BPE tokenizer trained with ``tokenizers`` on the train split only (sources and IR together).

Byte-level, so any text encodes (no unknown token) and decodes back to itself. The words BPE merges within
are identifier pieces and what lies between them: a run of letters, split where the case changes
(``project``, ``Joints``, ``HTTP``), is a word of its own, and every other run of characters (``_``, digits,
punctuation, spaces, newlines) is another. A name therefore gets the same tokens wherever it stands:
``project_joints`` in the Python, inside ``project_joints_cpu_kernel_forward`` and inside
``wp_args_project_joints`` in the IR all read ``project`` ``_`` ``joints``, so a decoder can copy a kernel's
name (even one it never saw in training) piece by piece from its prompt, which the evaluator's signature
check needs. The previous tokenizer (format 1) merged within whole lines: fewer tokens on Warp's repetitive
C++, but a name took different tokens in each line it appeared in. The change is ``checkpoint.FORMAT`` 2.

Measured on the first 1,000 train rows of a cpu build (generator 3.0.0), each tokenizer trained on those rows
at 8,192 tokens; tokens per row, mean / median / p95 / max (the command is in docs/baseline.md):
    format 1 (lines):             python_source 48.6 / 46 / 89 / 172,     ir 154.4 / 143 / 280 / 633
    format 2 (identifier pieces): python_source 144.6 / 140 / 246 / 400,  ir 803.6 / 784 / 1,342 / 2,884
About 5 times the tokens of the ir: nearly every piece is one token, and a line of Warp's C++ has ten pieces
(``var`` ``_5 = `` ``wp`` ``::`` ``add`` ``(`` ...). Training therefore sees fewer rows a second, and
``TrainOptions`` gives a context of 2,048 tokens; losses compare across formats per byte (``heldout``).
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Iterator
from pathlib import Path

from builder.train.prompt import SPECIAL
from builder.train.stream import open_split

# Identifier pieces, each isolated: an upper-case run before a capitalised word (HTTP|Server), an optionally
# capitalised lower-case run, an upper-case run, any other letters. What the pattern does not match (``_``,
# digits, punctuation, whitespace) becomes the pieces between, so the pieces cover the text exactly.
PIECES = r"\p{Lu}+(?=\p{Lu}\p{Ll})|\p{Lu}?\p{Ll}+|\p{Lu}+|\p{L}+"


def texts(rows: Iterable[dict]) -> Iterator[str]:
    for row in rows:
        yield row["python_source"]
        yield row["ir"]


def pre_tokenizer():
    """Identifier pieces, then bytes: splitting on characters first keeps a multi-byte character in one piece."""
    from tokenizers import Regex, pre_tokenizers

    pieces = pre_tokenizers.Split(Regex(PIECES), behavior="isolated")
    as_bytes = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    return pre_tokenizers.Sequence([pieces, as_bytes])


def train(rows: Iterable[dict], vocab_size: int):
    """Train the BPE on ``rows`` (stream order, so the same rows give the same merges)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizer()
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=SPECIAL,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(texts(rows), trainer=trainer)
    return tok


def train_on_split(data: str, config: str, vocab_size: int, max_rows: int = 0):
    """Train on the first ``max_rows`` rows of the train split in stored order (0: all of them)."""
    ds = open_split(data, config, "train")
    return train(ds.take(max_rows) if max_rows else ds, vocab_size)


def load(path: str | Path):
    from tokenizers import Tokenizer

    return Tokenizer.from_file(str(path))


def tokens_per_row(tokenizer, rows: Iterable[dict]) -> dict[str, dict[str, float]]:
    """Mean, median, 95th percentile and maximum of tokens per row for python_source and ir."""
    counts: dict[str, list[int]] = {"python_source": [], "ir": []}
    for row in rows:
        for column, values in counts.items():
            values.append(len(tokenizer.encode(row[column]).ids))
    return {column: _summary(values) for column, values in counts.items() if values}


def _summary(values: list[int]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "rows": len(ordered),
        "mean": round(statistics.fmean(ordered), 1),
        "median": statistics.median(ordered),
        "p95": ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))],
        "max": ordered[-1],
    }
