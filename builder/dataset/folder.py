"""Build the publishable folder: CONFIG/SPLIT-xxxxx-of-yyyyy.parquet plus a README card.

Everything is written under a temporary sibling directory and moved into place
at the end, so an interrupted or failed build never leaves a half-written folder.
"""

from __future__ import annotations

import gc
import os
import shutil
import tempfile
import uuid
from pathlib import Path

from builder.config import BuildOptions
from builder.errors import OutputExists
from builder.schema import SPLITS
from builder.warp_backend import codegen


def check_target(out: Path, overwrite: bool) -> None:
    if out.exists() and (not out.is_dir() or any(out.iterdir())) and not overwrite:
        raise OutputExists(f"output folder {str(out)!r} exists and is not empty; pass --overwrite to replace it")


def shard_count(rows: int, num_shards: int) -> int:
    return max(1, min(num_shards, rows))


def build_config(opts: BuildOptions, staging: Path, hf_cache: str, num_proc: int) -> dict[str, int]:
    """Generate one config with the datasets builder and write its Parquet shards; return split sizes."""
    from warp_cuda_ir import WarpCudaIR

    fields = {k: getattr(opts, k) for k in BuildOptions.__dataclass_fields__ if k != "config"}
    builder = WarpCudaIR(config_name=opts.config, cache_dir=hf_cache, **fields)
    builder.download_and_prepare(num_proc=num_proc if num_proc > 1 else None)
    sizes = {}
    (staging / opts.config).mkdir(parents=True, exist_ok=True)
    for split in SPLITS:
        if split not in builder.info.splits:
            continue
        rows = builder.info.splits[split].num_examples
        n = shard_count(rows, opts.num_shards)
        for i in range(n):
            _write_shard(builder, split, n, i, staging / opts.config / f"{split}-{i:05d}-of-{n:05d}.parquet")
        sizes[split] = rows
    del builder
    return sizes


def _write_shard(builder, split: str, n: int, i: int, path: Path) -> None:
    """Shard ``i`` of ``n`` of a prepared split, through its own memory map of the Arrow cache.

    Pages read through a memory map count in the process's resident size until the map is closed: one map
    over a whole split made writing the 10,000-row cuda-backward train split peak at 1.4 GB resident (1.3 GB
    of it file pages), against 0.36 GB when each shard opens and closes its own.
    """
    part = builder.as_dataset(split=split)
    part.shard(n, i, contiguous=True).to_parquet(str(path))
    del part
    gc.collect()  # a Dataset can sit in a reference cycle; the map closes only when it is freed


def build_folder(options: list[BuildOptions], out: Path, num_proc: int, overwrite: bool) -> dict[str, dict[str, int]]:
    check_target(out, overwrite)
    out = out.resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = out.parent / f".{out.name}.partial-{uuid.uuid4().hex[:8]}"
    staging.mkdir()
    work = Path(tempfile.mkdtemp(prefix="warp_cuda_ir_build_"))
    saved_cache = os.environ.get(codegen.KERNEL_CACHE_ENV)
    try:
        evidence = str(work / "evidence")  # shared by all configs: each program compiles once per target
        os.environ[codegen.KERNEL_CACHE_ENV] = str(work / "kernel_cache")  # inherited by worker processes
        stats = {}
        for opts in options:
            opts = BuildOptions(**{**opts.__dict__, "evidence_dir": evidence})
            stats[opts.config] = build_config(opts, staging, str(work / "hf_cache"), num_proc)
        from dataset_card.render import render

        render(staging, build_options=options)
        if out.exists():
            trash = out.parent / f".{out.name}.old-{uuid.uuid4().hex[:8]}"
            os.replace(out, trash)
            os.replace(staging, out)
            shutil.rmtree(trash, ignore_errors=True)
        else:
            os.replace(staging, out)
        return stats
    finally:
        if saved_cache is None:
            os.environ.pop(codegen.KERNEL_CACHE_ENV, None)
        else:
            os.environ[codegen.KERNEL_CACHE_ENV] = saved_cache
        shutil.rmtree(staging, ignore_errors=True)
        shutil.rmtree(work, ignore_errors=True)
