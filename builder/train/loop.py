"""The training loop: start or resume a run, step through the stream, checkpoint, stop on a step or time budget."""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from builder.errors import ConfigError, OutputExists
from builder.train import batches, checkpoint, model, stream, tokenizer
from builder.train.options import TrainOptions

# options a resumed run may change: where things are and how long it runs, never what it learns from or how
RESUMABLE_CHANGES = ("data", "out", "max_steps", "max_minutes", "save_every", "keep", "log_every")


@dataclass
class State:
    run: Path
    tokenizer: object
    model: object
    optimizer: object
    scheduler: object
    scaler: object
    stream: stream.RowStream
    step: int
    created: bool  # this invocation made the run folder (removed again if stopped before a checkpoint)


def _device():
    import torch

    if torch.cuda.is_available():
        dtype = torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
        return torch.device("cuda"), dtype
    return torch.device("cpu"), None  # full precision: autocast on a CPU is slower for a model this small


def _check_same(opts: TrainOptions, saved: dict, run: Path) -> None:
    mine = opts.to_dict()
    changed = [k for k in mine if k not in RESUMABLE_CHANGES and mine[k] != saved.get(k)]
    if changed:
        raise ConfigError(
            f"--resume of {str(run)!r} with different {', '.join(changed)}: a run continues with the options it "
            f"started with (only {', '.join(RESUMABLE_CHANGES[2:])} may change)"
        )


def _start(opts: TrainOptions, run: Path, progress: Callable[[str], None]):
    if opts.init_from:  # a second phase: the first phase's tokenizer and weights, only the data is new
        first = checkpoint.latest(Path(opts.init_from))
        progress(f"starting from the weights of {first}")
        tok, net = tokenizer.load(first / "tokenizer.json"), model.load(first)
    elif opts.tokenizer:
        tok, net = tokenizer.load(opts.tokenizer), None
    else:
        progress(f"training the BPE tokenizer ({opts.model.vocab_size} tokens) on {opts.config}/train")
        tok = tokenizer.train_on_split(opts.data, opts.config, opts.model.vocab_size, opts.tokenizer_rows)
        net = None
    sample = stream.open_split(opts.data, opts.config, "train").take(1000)
    stats = tokenizer.tokens_per_row(tok, sample)
    run.mkdir(parents=True)
    tok.save(str(run / "tokenizer.json"))
    net = net or model.build(opts.model, tok, opts.max_length, opts.seed)
    info = {
        "options": opts.to_dict(),
        "format": checkpoint.FORMAT,
        "tokens_per_row": stats,
        "parameters": model.parameters(net),
    }
    (run / "run.json").write_text(json.dumps(info, indent=1) + "\n")
    return tok, net


def prepare(opts: TrainOptions, resume: bool, progress: Callable[[str], None]) -> State:
    import torch
    from transformers import get_cosine_with_min_lr_schedule_with_warmup

    run = Path(opts.out)
    found = checkpoint.folders(run) if run.is_dir() else []
    if run.exists() and not resume:
        raise OutputExists(f"{str(run)!r} exists; pass --resume to continue its run, or choose another --out")
    if run.exists() and not found:
        raise ConfigError(f"{str(run)!r} has no checkpoint to resume from (not a run folder, or stopped before one)")
    device, _ = _device()
    if found:
        checkpoint.read_info(found[-1])  # a run of an older format cannot continue with this tokenizer
        info = checkpoint.check_format(json.loads((run / "run.json").read_text()), run)
        _check_same(opts, info["options"], run)
        tok, net = tokenizer.load(found[-1] / "tokenizer.json"), model.load(found[-1])
    else:
        tok, net = _start(opts, run, progress)
    net.to(device)
    opt = torch.optim.AdamW(net.parameters(), lr=opts.lr, weight_decay=opts.weight_decay, betas=(0.9, 0.95))
    sched = get_cosine_with_min_lr_schedule_with_warmup(opt, opts.warmup_steps, opts.max_steps, min_lr_rate=0.1)
    scaler = torch.amp.GradScaler(device.type, enabled=_device()[1] == torch.float16)
    rank, world = stream.rank_from_env()
    mix = (opts.mix_data or opts.data, opts.mix_config, opts.mix_share) if opts.mix_config else None
    rows = stream.RowStream(opts.data, opts.config, opts.seed, opts.buffer_size, rank, world, opts.train_rows, mix)
    step = 0
    if found:
        trainer, stream_state = checkpoint.load_trainer(found[-1])
        opt.load_state_dict(trainer["optimizer"])
        sched.load_state_dict(trainer["scheduler"])
        scaler.load_state_dict(trainer["scaler"])
        rows.load_state_dict(stream_state)
        step = trainer["step"]
        _truncate_log(run, step)
        progress(f"resumed {run} at step {step} (epoch {rows.epoch})")
    return State(run, tok, net, opt, sched, scaler, rows, step, created=not found)


def _truncate_log(run: Path, step: int) -> None:
    """Drop log lines past the checkpoint: the resumed run logs those steps again."""
    kept = [r for r in checkpoint.read_log(run) if r["step"] <= step]
    tmp = run / "log.jsonl.tmp"
    tmp.write_text("".join(json.dumps(r) + "\n" for r in kept))
    tmp.replace(run / "log.jsonl")


def _save(s: State, opts: TrainOptions) -> Path:
    trainer = {
        "optimizer": s.optimizer.state_dict(),
        "scheduler": s.scheduler.state_dict(),
        "scaler": s.scaler.state_dict(),
        "step": s.step,
    }
    return checkpoint.save(s.run, s.step, s.model, s.tokenizer, trainer, s.stream.state_dict(), opts.to_dict())


def train(
    opts: TrainOptions,
    resume: bool = False,
    progress: Callable[[str], None] = print,
    on_step: Callable[[dict], None] | None = None,
) -> dict:
    """Train until max_steps or max_minutes; returns the last logged record. ``on_step`` sees every step."""
    s = prepare(opts, resume, progress)
    try:
        return _steps(s, opts, progress, on_step)
    except KeyboardInterrupt as exc:
        if s.created and not checkpoint.folders(s.run):
            shutil.rmtree(s.run)  # a run stopped before its first checkpoint leaves nothing
            exc.detail = f"removed {s.run} (no checkpoint yet)"
        else:
            exc.detail = f"{checkpoint.latest(s.run).name} is kept; rerun with --resume to continue"
        raise


def _steps(s: State, opts: TrainOptions, progress, on_step) -> dict:
    import torch

    device, dtype = _device()
    started, window_start, window_tokens = time.monotonic(), time.monotonic(), 0
    source = batches.batches(iter(s.stream), s.tokenizer, opts.batch_size, opts.max_prompt, opts.max_length)
    record: dict = {}
    s.model.train()
    while s.step < opts.max_steps:
        batch, ids, tokens = next(source)
        batch = {k: v.to(device) for k, v in batch.items()}
        with torch.autocast(device.type, dtype=dtype, enabled=dtype is not None):
            loss = s.model(**batch).loss
        s.scaler.scale(loss).backward()
        s.scaler.unscale_(s.optimizer)
        torch.nn.utils.clip_grad_norm_(s.model.parameters(), 1.0)
        s.scaler.step(s.optimizer)
        s.scaler.update()
        s.optimizer.zero_grad(set_to_none=True)
        s.scheduler.step()
        s.step += 1
        window_tokens += tokens
        out_of_time = opts.max_minutes and time.monotonic() - started >= opts.max_minutes * 60
        if s.step % opts.log_every == 0 or s.step == opts.max_steps or out_of_time:
            elapsed = time.monotonic() - window_start
            record = {
                "step": s.step,
                "epoch": s.stream.epoch,
                "loss": round(loss.item(), 4),
                "lr": s.scheduler.get_last_lr()[0],
                "tokens_per_s": round(window_tokens / max(elapsed, 1e-9), 1),
                "minutes": round((time.monotonic() - started) / 60, 2),
            }
            checkpoint.append_log(s.run, record)
            progress(f"step {s.step}/{opts.max_steps} loss {record['loss']:.4f} {record['tokens_per_s']:.0f} tok/s")
            window_start, window_tokens = time.monotonic(), 0
        if s.step % opts.save_every == 0 or s.step == opts.max_steps or out_of_time:
            progress(f"checkpoint {_save(s, opts)}")
        if on_step:  # after the checkpoint: a hook that stops the run sees every finished step saved
            on_step({"step": s.step, "ids": ids, "loss": loss.item()})
        if out_of_time:
            progress(f"stopped after {opts.max_minutes} minutes at step {s.step}; --resume continues it")
            break
    return record
