"""The input loop a trainer runs on a warp_cuda_ir folder: streamed, shuffled, sharded by rank, resumable.

    python scripts/stream_example.py FOLDER [--config cuda-forward] [--rank 0] [--world-size 2]
                                     [--steps 4] [--buffer-size 64] [--seed 0]

Each rank reads whole Parquet shards (``split_dataset_by_node`` assigns shards
when their count divides evenly by the world size), shuffles rows within a
buffer, and can stop and resume from ``state_dict()``. Note that ``datasets``
does not checkpoint the shuffle buffer: rows held in it when the state is
saved are not replayed after a resume.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path


def make_stream(
    folder: str | Path,
    config: str = "cuda-forward",
    split: str = "train",
    rank: int = 0,
    world_size: int = 2,
    seed: int = 0,
    buffer_size: int | None = 64,
):
    """A streamed ``IterableDataset`` for one rank; ``buffer_size=None`` disables shuffling."""
    import datasets
    from datasets.distributed import split_dataset_by_node

    ds = datasets.load_dataset(str(folder), config, split=split, streaming=True)
    if buffer_size:
        # same seed on every rank: the shard order is permuted identically, so ranks stay disjoint
        ds = ds.shuffle(buffer_size=buffer_size, seed=seed)
    return split_dataset_by_node(ds, rank=rank, world_size=world_size)


def batches(ds, batch_size: int) -> Iterator[list[dict]]:
    batch: list[dict] = []
    for row in ds:
        batch.append({"id": row["id"], "python_source": row["python_source"], "ir": row["ir"]})
        if len(batch) == batch_size:
            yield batch
            batch = []
    if batch:
        yield batch


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("folder")
    p.add_argument("--config", default="cuda-forward")
    p.add_argument("--rank", type=int, default=0)
    p.add_argument("--world-size", type=int, default=2)
    p.add_argument("--steps", type=int, default=4, help="rows to read before checkpointing")
    p.add_argument("--buffer-size", type=int, default=64)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    if not Path(args.folder).is_dir():
        print(f"stream_example: error: {args.folder!r} is not a folder", file=sys.stderr)
        return 2
    os.environ.setdefault("HF_HUB_OFFLINE", "1")

    ds = make_stream(args.folder, args.config, "train", args.rank, args.world_size, args.seed, args.buffer_size)
    print(f"rank {args.rank}/{args.world_size}: {ds.num_shards} shard(s)")
    it = iter(ds)
    for step in range(args.steps):
        row = next(it, None)
        if row is None:
            break
        print(f"step {step}: {row['id']} ({row['category']}, {row['ir_lines']} IR lines)")
    state = ds.state_dict()
    print("checkpoint:", json.dumps(state)[:200])

    # a restarted trainer rebuilds the same stream and resumes from the checkpoint
    resumed = make_stream(args.folder, args.config, "train", args.rank, args.world_size, args.seed, args.buffer_size)
    resumed.load_state_dict(state)
    rest = [row["id"] for row in resumed]
    print(f"resumed: {len(rest)} more rows" + (f", first {rest[0]}" if rest else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
