"""Held-out loss: a checkpoint's cross-entropy on rows it never trained on, in nats per byte of ir and per token.

Teacher-forced, so it moves long before a greedy decode writes a function that compiles: the measure of
progress for a model still far from the evaluator's scores. Per *byte* (UTF-8 bytes of the row's ``ir``) so
runs with different tokenizers compare; per token for continuity. Both count the ir's tokens only: the
``<|eos|>`` after them is reported apart (``eos_nats``, its mean loss), since it says when to stop, not what
to write.

Only whole rows are scored: the prompt is built as in training (its source's tail when longer than the run's
``max_prompt``; counted in ``prompts_cut``), and a row whose prompt, ir and ``<|eos|>`` do not fit in the
run's ``max_length`` (the context the model was trained at) is left out and counted (``left_out`` rows,
``left_out_bytes`` of ir), never cut. Rows are grouped by ``source_of`` their id.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict, dataclass
from pathlib import Path

from builder.configs import REGISTRY
from builder.train import batches, checkpoint, model, predict, prompt, tokenizer


@dataclass
class Tally:
    rows: int = 0
    scored: int = 0
    left_out: int = 0
    left_out_bytes: int = 0
    prompts_cut: int = 0
    ir_bytes: int = 0
    ir_tokens: int = 0
    nats: float = 0.0
    eos_nats: float = 0.0

    def add(self, other: Tally) -> None:
        for name, value in asdict(other).items():
            setattr(self, name, getattr(self, name) + value)

    def summary(self) -> dict:
        out = {k: v for k, v in asdict(self).items() if k not in ("nats", "eos_nats")}
        out["nats_per_byte"] = round(self.nats / self.ir_bytes, 5) if self.ir_bytes else None
        out["nats_per_token"] = round(self.nats / self.ir_tokens, 5) if self.ir_tokens else None
        out["eos_nats"] = round(self.eos_nats / self.scored, 5) if self.scored else None
        return out


def source_of(row_id: str) -> str:
    """Where a row comes from: for a real row, its package by import name, warp-lang's split into its parts
    (``warp.examples``, ``warp._src``, ``warp.tests``; ``newton`` for ``real/test/newton._src.x:kernel/cpu``); the
    config for a generated row (``cpu/test/0/1``). A real train row's too (``real/train/gswarp.x:kernel/cpu``)."""
    parts = row_id.split("/")
    if parts[0] in REGISTRY and REGISTRY[parts[0]].shipped and len(parts) > 2:
        module = parts[2].split(":")[0].split(".")
        return ".".join(module[:2]) if module[0] == "warp" else module[0]
    return parts[0]


def score(ckpt: str | Path, data: str, config: str, split: str, limit: int = 0, batch_tokens: int = 8192) -> dict:
    """Loss over the rows ``predict`` would decode (the first ``limit`` with the trained target and pass): the
    overall summary, with ``by_source`` holding one summary per ``source_of`` group, and for ``real`` rows
    ``by_group`` one per ``split_group`` (in-project: unseen modules of seen packages; held-out packages)."""
    folder = checkpoint.latest(Path(ckpt))
    opts = checkpoint.read_info(folder)["options"]
    # on the GPU where one is visible: on a 16-core GPU machine's CPU a checkpoint's curve took 5 minutes
    tok, net = tokenizer.load(folder / "tokenizer.json"), model.for_inference(folder)
    rows = predict.rows_to_predict(data, config, split, opts["config"], predict.DecodeOptions(limit=limit))
    tallies: dict[str, Tally] = defaultdict(Tally)
    groups: dict[str, Tally] = defaultdict(Tally)
    examples, owners = [], []
    for row in rows:
        mine = [tallies[source_of(row["id"])]] + ([groups[row["split_group"]]] if row.get("split_group") else [])
        ids, n_prompt, cut = _example(tok, row, opts["max_prompt"])
        nbytes = len(row["ir"].encode("utf-8"))
        for t in mine:
            t.rows += 1
            if len(ids) > opts["max_length"]:  # no position past the trained context: left out, not cut
                t.left_out += 1
                t.left_out_bytes += nbytes
                continue
            t.scored += 1
            t.prompts_cut += cut
            t.ir_bytes += nbytes
            t.ir_tokens += len(ids) - n_prompt - 1
        if len(ids) <= opts["max_length"]:
            examples.append((ids, n_prompt))
            owners.append(mine)
    for mine, nats in zip(owners, _completion_losses(net, examples, tok.token_to_id(prompt.PAD), batch_tokens)):
        for t in mine:
            t.nats += float(nats[:-1].sum())
            t.eos_nats += float(nats[-1])
    total = Tally()
    for t in tallies.values():
        total.add(t)
    out = {**total.summary(), "by_source": {k: tallies[k].summary() for k in sorted(tallies)}}
    return out | ({"by_group": {k: groups[k].summary() for k in sorted(groups)}} if groups else {})


def _example(tok, row: dict, max_prompt: int) -> tuple[list[int], int, bool]:
    """(prompt + ir + eos ids, prompt length, whether the prompt was cut to max_prompt), nothing else cut."""
    ids = prompt.prompt_ids(tok, row, max_prompt)
    cut = len(ids) == max_prompt and len(prompt.prompt_ids(tok, row, max_prompt + 1)) > max_prompt
    completion = tok.encode(row["ir"]).ids + [tok.token_to_id(prompt.EOS)]
    return ids + completion, len(ids), cut


def _completion_losses(net, examples: list[tuple[list[int], int]], pad_id: int, batch_tokens: int):
    """Per example, the loss (nats) of each completion token, in the given order. Batched by length (longest
    first) under ``batch_tokens`` padded tokens a batch, so a few long rows do not pad every batch."""
    import torch

    device = next(net.parameters()).device
    order = sorted(range(len(examples)), key=lambda i: -len(examples[i][0]))
    out: list = [None] * len(examples)
    start = 0
    while start < len(order):
        width = len(examples[order[start]][0])
        chunk = order[start : start + max(1, batch_tokens // width)]
        batch = {k: v.to(device) for k, v in batches.collate([examples[i] for i in chunk], pad_id).items()}
        with torch.no_grad():
            logits = net(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]).logits
        labels = batch["labels"][:, 1:]  # position t predicts token t + 1
        nats = torch.nn.functional.cross_entropy(
            logits[:, :-1].transpose(1, 2).float(), labels, ignore_index=batches.IGNORE, reduction="none"
        )
        for row, i in enumerate(chunk):
            ids, n_prompt = examples[i]
            out[i] = nats[row, n_prompt - 1 : len(ids) - 1].double().cpu()
        start += len(chunk)
    return out
