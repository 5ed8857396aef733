"""Decode a checkpoint's predictions for a split into the evaluator's JSONL: ``{"id": ..., "ir": ...}`` a line.

Greedy (``temperature=0``, one sample a row) or sampled (``n`` samples a row, for pass@k). Prompts are built
and truncated exactly as in training (header, the tail of the source, ``<|ir|>``), and a completion may run
to the model's trained context length (``max_length``) or ``max_new_tokens``, whichever comes first; it ends
at ``<|eos|>``. ``max_new_tokens`` 0 (the default) is the longest reference among the rows predicted, in
tokens, plus its ``<|eos|>``: no answer as long as a reference is cut short, and no batch decodes to the end
of the context when every reference is shorter. Sampling is seeded per batch from the run's RNG derivation,
so a rerun writes the same bytes.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from builder.configs import UNITS
from builder.errors import ConfigError
from builder.rng import stable_int
from builder.train import checkpoint, model, prompt, stream, tokenizer


@dataclass(frozen=True)
class DecodeOptions:
    samples: int = 1
    temperature: float = 0.0  # 0: greedy
    top_p: float = 1.0
    max_new_tokens: int = 0  # 0: the longest reference among the rows predicted (+ its <|eos|>)
    batch_size: int = 8
    limit: int = 0  # the first N matching rows of the split in stored order (0: all)
    seed: int = 0
    all_targets: bool = False

    def __post_init__(self) -> None:
        for name in ("samples", "batch_size"):
            if getattr(self, name) < 1:
                raise ConfigError(f"{name} must be a positive integer, got {getattr(self, name)!r}")
        if self.limit < 0 or self.max_new_tokens < 0:
            raise ConfigError("limit and max_new_tokens must be >= 0")
        if self.temperature < 0 or not 0 < self.top_p <= 1:
            raise ConfigError(f"temperature must be >= 0 and top_p in (0, 1], got {self.temperature}, {self.top_p}")
        if self.temperature == 0 and self.samples > 1:
            raise ConfigError("greedy decoding (temperature 0) gives one answer: pass --temperature > 0 for samples")


def rows_to_predict(data: str, config: str, split: str, trained: str, opts: DecodeOptions) -> list[dict]:
    """Rows of the split with the trained target and pass (``real`` mixes them), the first ``limit`` of them."""
    want = UNITS[trained].as_tuple()[:2]
    rows = []
    for row in stream.open_split(data, config, split, extra=("split_group",)):
        if opts.all_targets or (row["target"], row["pass"]) == want:
            rows.append(row)
            if len(rows) == opts.limit:
                break
    if not rows:
        raise ConfigError(f"no {config}/{split} rows with target/pass {' '.join(want)} (--all-targets takes every row)")
    return rows


def new_tokens(tok, rows: list[dict], opts: DecodeOptions) -> int:
    """The cap on a completion: ``max_new_tokens``, or when 0 the longest reference of ``rows`` and its eos."""
    return opts.max_new_tokens or max(len(tok.encode(row["ir"]).ids) for row in rows) + 1


def _decode_batch(net, tok, info: dict, batch: list[dict], opts: DecodeOptions, cap: int) -> list[list[str]]:
    import torch

    train_opts = info["options"]
    pad, eos = tok.token_to_id(prompt.PAD), tok.token_to_id(prompt.EOS)
    prompts = [prompt.prompt_ids(tok, row, train_opts["max_prompt"]) for row in batch]
    width = max(len(p) for p in prompts)
    ids = torch.tensor([[pad] * (width - len(p)) + p for p in prompts])  # left padding: every prompt ends at -1
    mask = (torch.arange(width)[None, :] >= torch.tensor([width - len(p) for p in prompts])[:, None]).long()
    room = train_opts["max_length"] - width
    new = min(room, cap)
    device = next(net.parameters()).device
    sampled = opts.temperature > 0
    with torch.random.fork_rng(devices=[device] if device.type == "cuda" else []), torch.no_grad():
        torch.manual_seed(stable_int(opts.seed, "predict", batch[0]["id"], bits=63))
        out = net.generate(
            input_ids=ids.to(device),
            attention_mask=mask.to(device),
            max_new_tokens=max(new, 1),
            do_sample=sampled,
            temperature=opts.temperature if sampled else None,
            top_p=opts.top_p if sampled else None,
            top_k=None,
            num_return_sequences=opts.samples,
            pad_token_id=pad,
            eos_token_id=eos,
        )
    texts = [tok.decode(seq[width:].tolist(), skip_special_tokens=True) for seq in out.cpu()]
    return [texts[i * opts.samples : (i + 1) * opts.samples] for i in range(len(batch))]


def write(
    ckpt: str | Path,
    data: str,
    config: str,
    split: str,
    out: str | Path,
    opts: DecodeOptions,
    progress: Callable[[str], None] = print,
) -> int:
    """Write the predictions file atomically; returns the number of lines."""
    folder = checkpoint.latest(Path(ckpt))
    info = checkpoint.read_info(folder)
    tok, net = tokenizer.load(folder / "tokenizer.json"), model.for_inference(folder)
    rows = rows_to_predict(data, config, split, info["options"]["config"], opts)
    cap = new_tokens(tok, rows, opts)
    progress(f"{folder}: predicting {len(rows)} {config}/{split} rows x {opts.samples} sample(s), at most {cap} tokens")
    out = Path(out)
    tmp = out.with_name(f".{out.name}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            for start in range(0, len(rows), opts.batch_size):
                batch = rows[start : start + opts.batch_size]
                for row, texts in zip(batch, _decode_batch(net, tok, info, batch, opts, cap)):
                    f.writelines(json.dumps({"id": row["id"], "ir": t}) + "\n" for t in texts)
                progress(f"{min(start + opts.batch_size, len(rows))}/{len(rows)} rows")
        os.replace(tmp, out)
    finally:
        tmp.unlink(missing_ok=True)
    return len(rows) * opts.samples
