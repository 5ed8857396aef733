"""Rows to tensors: prompt + completion ids, right-padded, labels masked to the completion."""

from __future__ import annotations

from collections.abc import Iterator

from builder.train import prompt

IGNORE = -100  # the label transformers' loss skips


def collate(examples: list[tuple[list[int], int]], pad_id: int) -> dict:
    """input_ids, attention_mask and labels (-100 on the prompt and the padding) for (ids, prompt length) pairs."""
    import torch

    width = max(len(ids) for ids, _ in examples)
    input_ids = torch.full((len(examples), width), pad_id, dtype=torch.long)
    labels = torch.full((len(examples), width), IGNORE, dtype=torch.long)
    mask = torch.zeros((len(examples), width), dtype=torch.long)
    for i, (ids, n_prompt) in enumerate(examples):
        input_ids[i, : len(ids)] = torch.tensor(ids)
        mask[i, : len(ids)] = 1
        labels[i, n_prompt : len(ids)] = input_ids[i, n_prompt : len(ids)]
    return {"input_ids": input_ids, "attention_mask": mask, "labels": labels}


def batches(rows: Iterator[dict], tokenizer, batch_size: int, max_prompt: int, max_length: int):
    """(batch, row ids, tokens) per step, drawing ``batch_size`` rows from the stream each time."""
    pad_id = tokenizer.token_to_id(prompt.PAD)
    while True:
        chunk = [next(rows) for _ in range(batch_size)]
        examples = [prompt.example(tokenizer, row, max_prompt, max_length) for row in chunk]
        yield collate(examples, pad_id), [row["id"] for row in chunk], sum(len(ids) for ids, _ in examples)
