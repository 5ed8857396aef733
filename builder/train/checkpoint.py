"""A run folder and its checkpoints: everything a killed run needs to continue where it stopped.

    RUN/run.json                    the options, the tokenizer's tokens per row, the model's size
    RUN/tokenizer.json              the BPE tokenizer (trained once, on the train split)
    RUN/log.jsonl                   one line per logged step: loss, learning rate, tokens/s
    RUN/checkpoints/step-000100/    model (config.json, model.safetensors), tokenizer.json,
                                    trainer.pt (optimizer, scheduler, grad scaler, step), stream.json,
                                    train.json (the run's options, the step, the format)

A checkpoint is written under a temporary name and renamed into place, so a kill leaves either the whole
checkpoint or none of it; the newest complete one is what ``--resume`` and ``predict`` load. Every checkpoint
and run.json carries ``FORMAT``; one of another format is refused, not misread.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from builder.errors import ConfigError

PREFIX = "step-"
# What a checkpoint's token ids mean. 1 (no "format" key): BPE within whole lines; 2: BPE within identifier
# pieces (builder/train/tokenizer.py). A model of one format decodes nonsense through the other's tokenizer.
FORMAT = 2


def folders(run: Path) -> list[Path]:
    """Complete checkpoints, oldest first."""
    root = run / "checkpoints"
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if p.name.startswith(PREFIX) and p.is_dir())


def latest(path: Path) -> Path:
    """``path`` itself if it is a checkpoint, else the newest checkpoint of the run folder ``path``."""
    if (path / "trainer.pt").is_file():
        return path
    found = folders(path)
    if not found:
        raise ConfigError(f"{str(path)!r} is neither a checkpoint nor a run folder with one")
    return found[-1]


def save(run: Path, step: int, model, tokenizer, trainer_state: dict, stream_state: dict, options: dict) -> Path:
    """Write checkpoint ``step`` atomically and prune to the newest ``options["keep"]`` (0: keep all)."""
    import torch

    final = run / "checkpoints" / f"{PREFIX}{step:06d}"
    tmp = final.with_name(f".tmp-{final.name}")
    shutil.rmtree(tmp, ignore_errors=True)  # our own leftover from a run killed while saving
    tmp.mkdir(parents=True)
    model.save_pretrained(tmp)
    tokenizer.save(str(tmp / "tokenizer.json"))
    torch.save(trainer_state, tmp / "trainer.pt")
    (tmp / "stream.json").write_text(json.dumps(stream_state))
    # what predict needs to rebuild prompts as in training, without the run folder around the checkpoint
    info = {"options": options, "step": step, "format": FORMAT}
    (tmp / "train.json").write_text(json.dumps(info, indent=1) + "\n")
    if final.exists():  # the same step saved again (a resumed run that stopped at once)
        shutil.rmtree(final)
    os.replace(tmp, final)
    if options["keep"]:
        for old in folders(run)[: -options["keep"]]:
            shutil.rmtree(old)
    return final


def check_format(info: dict, where: Path) -> dict:
    """``info`` (a train.json or run.json) if it is of this trainer's format, else a ConfigError saying why."""
    found = info.get("format", 1)
    if found != FORMAT:
        raise ConfigError(
            f"{str(where)!r} is checkpoint format {found}; this trainer reads format {FORMAT} (its tokenizer splits "
            "text into other tokens): train a new run"
        )
    return info


def read_info(folder: Path) -> dict:
    """A checkpoint's train.json (options, step, format), refused if of another format."""
    return check_format(json.loads((folder / "train.json").read_text()), folder)


def load_trainer(folder: Path) -> tuple[dict, dict]:
    """(trainer state, stream state) of a checkpoint."""
    import torch

    state = torch.load(folder / "trainer.pt", map_location="cpu", weights_only=False)
    return state, json.loads((folder / "stream.json").read_text())


def append_log(run: Path, record: dict) -> None:
    with open(run / "log.jsonl", "a", encoding="utf-8") as f:
        f.write(json.dumps(record) + "\n")


def read_log(run: Path) -> list[dict]:
    path = run / "log.jsonl"
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
