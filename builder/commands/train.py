"""``warp-cuda-ir train``: train a small decoder-only model to write a kernel's IR from its Python source."""

from __future__ import annotations

import argparse
import dataclasses

from builder.errors import ConfigError

NAME = "train"
HELP = "train a baseline model (BPE tokenizer + small transformer) on a config's train split; resumable"
NEEDS_EXTRA = "train and predict need the train extra (torch, transformers, tokenizers): pip install -e '.[train]'"
EPILOG = (
    "The run folder --out gets run.json (options, tokens per row, parameters), tokenizer.json, log.jsonl (loss, "
    "learning rate, tokens/s per logged step) and checkpoints/step-NNNNNN/ (model, tokenizer, optimizer, "
    "scheduler, stream position). Prompt: a header naming the target and pass, the row's python_source, a "
    "separator; completion: the row's ir; the loss is on the completion only. A CUDA GPU is used when present, "
    "with bf16 (or fp16) autocast; RANK and WORLD_SIZE split the stream's shards between ranks. SIGINT, SIGTERM "
    "and SIGHUP stop a run (exit 128 + signal) keeping its last checkpoint; the same command with --resume "
    "continues it at the next row of the stream (within the epoch it stopped in, at most --buffer-size rows "
    "that sat in the shuffle buffer are skipped or seen twice; with --buffer-size 0, none)."
)


def _fields(cls):
    return [f for f in dataclasses.fields(cls) if f.name not in ("data", "out", "model")]


def add_arguments(p: argparse.ArgumentParser) -> None:
    from builder.train.options import ModelOptions, TrainOptions

    p.epilog = EPILOG
    p.add_argument("--data", required=True, help="dataset folder (built by `build`) or Hub id")
    p.add_argument("--out", required=True, help="run folder to create (or, with --resume, to continue)")
    for cls in (TrainOptions, ModelOptions):  # one source: the options' fields, their defaults and help
        for f in _fields(cls):
            p.add_argument(
                "--" + f.name.replace("_", "-"),
                type=type(f.default),
                default=f.default,
                help=f"{f.metadata['help']} (default {f.default})".replace("%", "%%"),
            )
    p.add_argument("--resume", action="store_true", help="continue the run in --out from its newest checkpoint")
    p.add_argument("--threads", type=int, default=0, help="torch CPU threads (0: torch's default)")


def run(args: argparse.Namespace) -> int:
    from builder.train.options import ModelOptions, TrainOptions

    model = ModelOptions(**{f.name: getattr(args, f.name) for f in _fields(ModelOptions)})
    opts = TrainOptions(
        data=args.data, out=args.out, model=model, **{f.name: getattr(args, f.name) for f in _fields(TrainOptions)}
    )
    loop = _import_or_exit("builder.train.loop")
    _set_threads(args.threads)
    record = loop.train(opts, resume=args.resume, progress=lambda m: print(m, flush=True))
    if record:
        print(f"done: step {record['step']}, loss {record['loss']:.4f}; checkpoints in {args.out}/checkpoints")
    return 0


def _import_or_exit(module: str):
    """``module`` of builder.train, after checking the extra is installed (its imports of torch are lazy)."""
    import importlib

    try:
        for name in ("torch", "transformers", "tokenizers"):
            importlib.import_module(name)
    except ModuleNotFoundError as exc:
        raise ConfigError(NEEDS_EXTRA) from exc
    return importlib.import_module(module)


def _set_threads(threads: int) -> None:
    if threads < 0:
        raise ConfigError(f"--threads must be >= 0, got {threads}")
    if threads:
        import torch

        torch.set_num_threads(threads)
