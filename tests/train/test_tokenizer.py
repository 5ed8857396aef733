"""The BPE tokenizer: trained on the train split only, deterministic, lossless on Warp's C++."""

from __future__ import annotations

import itertools

import pytest

from builder.train import prompt, tokenizer
from builder.train.stream import open_split

pytestmark = pytest.mark.slow  # builds the tiny folder (once a session) and streams it


def test_same_rows_same_tokenizer(tiny, bpe):
    again = tokenizer.train_on_split(str(tiny), "cpu", vocab_size=400)
    assert again.to_str() == bpe.to_str()
    assert bpe.get_vocab_size() == 400
    assert all(bpe.token_to_id(t) is not None for t in prompt.SPECIAL)


def test_text_round_trips(tiny, bpe):
    for row in itertools.islice(open_split(str(tiny), "cpu", "test"), 3):
        for column in ("python_source", "ir"):
            assert bpe.decode(bpe.encode(row[column]).ids) == row[column]


def test_tokens_per_row_summary(tiny, bpe):
    stats = tokenizer.tokens_per_row(bpe, open_split(str(tiny), "cpu", "train"))
    assert set(stats) == {"python_source", "ir"}
    ir = stats["ir"]
    assert ir["rows"] == 40 and 0 < ir["median"] <= ir["p95"] <= ir["max"]
