"""What the model reads and what it must write, as token ids.

A training sequence is ``<|target|>TARGET PASS\\n`` + python_source + ``<|ir|>`` (the prompt) followed by the
row's ``ir`` and ``<|eos|>`` (the completion); the loss is on the completion only. A prompt longer than
``max_prompt`` tokens keeps its header and the *last* tokens of the source: the ``@wp.kernel`` a row is about
comes last in its source, after the helpers and structs it uses. A completion longer than what is left of
``max_length`` is cut at its end (and then has no ``<|eos|>``).
"""

from __future__ import annotations

PAD, EOS, TARGET, IR = "<|pad|>", "<|eos|>", "<|target|>", "<|ir|>"
SPECIAL = [PAD, EOS, TARGET, IR]


def header(row: dict) -> str:
    return f"{TARGET}{row['target']} {row['pass']}\n"


def prompt_ids(tokenizer, row: dict, max_prompt: int) -> list[int]:
    """The header, the source (its tail when too long) and the ``<|ir|>`` separator, at most max_prompt ids."""
    head = tokenizer.encode(header(row)).ids
    source = tokenizer.encode(row["python_source"]).ids
    sep = [tokenizer.token_to_id(IR)]
    room = max(0, max_prompt - len(head) - len(sep))
    return head + (source[-room:] if room else []) + sep


def example(tokenizer, row: dict, max_prompt: int, max_length: int) -> tuple[list[int], int]:
    """(prompt + completion ids, prompt length): the completion is the row's ir and ``<|eos|>``, cut to fit."""
    prompt = prompt_ids(tokenizer, row, max_prompt)
    completion = tokenizer.encode(row["ir"]).ids + [tokenizer.token_to_id(EOS)]
    return (prompt + completion)[:max_length], len(prompt)
