"""Held-out loss: a checkpoint's mean cross-entropy per completion token on rows it never trained on.

Teacher-forced, so it moves long before a greedy decode writes a function that compiles: the measure of
progress for a model still far from the evaluator's scores.
"""

from __future__ import annotations

import json
from pathlib import Path

from builder.train import batches, checkpoint, model, predict, prompt, tokenizer


def loss(ckpt: str | Path, data: str, config: str, split: str, limit: int, batch_size: int = 16) -> float:
    """Mean loss per completion token over the rows ``predict`` would decode (the first ``limit`` with the trained
    target and pass), prompts built as in training."""
    import torch

    folder = checkpoint.latest(Path(ckpt))
    opts = json.loads((folder / "train.json").read_text())["options"]
    tok, net = tokenizer.load(folder / "tokenizer.json"), model.load(folder)
    net.eval()
    rows = predict.rows_to_predict(data, config, split, opts["config"], predict.DecodeOptions(limit=limit))
    total, count = 0.0, 0
    for start in range(0, len(rows), batch_size):
        examples = [
            prompt.example(tok, r, opts["max_prompt"], opts["max_length"]) for r in rows[start : start + batch_size]
        ]
        batch = batches.collate(examples, tok.token_to_id(prompt.PAD))
        with torch.no_grad():
            logits = net(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]).logits
        labels = batch["labels"][:, 1:]  # position t predicts token t + 1
        total += torch.nn.functional.cross_entropy(
            logits[:, :-1].reshape(-1, logits.shape[-1]).float(), labels.reshape(-1), reduction="sum"
        ).item()
        count += int((labels != batches.IGNORE).sum())
    return total / max(count, 1)
