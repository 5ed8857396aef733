"""Prompts keep the header and the kernel (the source's tail); the loss sees only the completion."""

from __future__ import annotations

import itertools

import pytest

from builder.train import batches, prompt
from builder.train.stream import open_split

pytestmark = pytest.mark.slow  # builds the tiny folder (once a session) and streams it


def _row(tiny) -> dict:
    return next(itertools.islice(open_split(str(tiny), "cpu", "train"), 1))


def test_long_source_keeps_header_and_tail(tiny, bpe):
    row = _row(tiny)
    full = prompt.prompt_ids(bpe, row, 10_000)
    cut = prompt.prompt_ids(bpe, row, 40)
    head = bpe.encode(prompt.header(row)).ids
    assert len(cut) == 40 < len(full)
    assert cut[: len(head)] == head and cut[-1] == bpe.token_to_id(prompt.IR)
    assert cut[len(head) : -1] == full[-(40 - len(head)) : -1]  # the last source tokens
    assert bpe.decode(full, skip_special_tokens=False).startswith("<|target|>cpu forward\n")


def test_completion_is_the_ir_then_eos_cut_to_max_length(tiny, bpe):
    row = _row(tiny)
    ids, n_prompt = prompt.example(bpe, row, 64, 100_000)
    assert bpe.decode(ids[n_prompt:-1]) == row["ir"] and ids[-1] == bpe.token_to_id(prompt.EOS)
    short, _ = prompt.example(bpe, row, 64, 80)
    assert short == ids[:80]


def test_labels_mask_prompt_and_padding():
    batch = batches.collate([([5, 6, 7, 8], 2), ([9, 10, 11], 1)], pad_id=0)
    assert batch["input_ids"].tolist() == [[5, 6, 7, 8], [9, 10, 11, 0]]
    assert batch["attention_mask"].tolist() == [[1, 1, 1, 1], [1, 1, 1, 0]]
    assert batch["labels"].tolist() == [[-100, -100, 7, 8], [-100, 10, 11, -100]]
