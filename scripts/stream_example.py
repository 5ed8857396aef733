"""The input loop a trainer runs on a warp_cuda_ir folder: streamed, shuffled, split by rank, resumable.

    python scripts/stream_example.py FOLDER [--config cuda-forward] [--rank 0] [--world-size 2]
                                     [--steps 4] [--buffer-size 64] [--seed 0]

A thin front for ``builder.train.stream.RowStream``, the stream ``warp-cuda-ir train`` reads: each rank reads whole
Parquet shards (``datasets.distributed.split_dataset_by_node``), rows are shuffled within a buffer, and the
position is saved with ``state_dict()`` and restored in a new stream. ``datasets`` does not checkpoint the shuffle
buffer: rows held in it when the state is saved are not replayed after a resume (``builder/train/stream.py``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from contextlib import closing
from itertools import islice
from pathlib import Path


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
    if not 0 <= args.rank < args.world_size:
        print(f"stream_example: error: --rank must be in [0, --world-size), got {args.rank}", file=sys.stderr)
        return 2
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from builder.train.stream import RowStream

    def stream() -> RowStream:
        return RowStream(args.folder, args.config, args.seed, args.buffer_size, args.rank, args.world_size)

    first = stream()
    print(f"rank {args.rank}/{args.world_size}: {first.ds.num_shards} shard(s)")
    # each iterator is closed when done with: one left suspended keeps a Parquet reader open, and its threads
    # could abort the interpreter at exit ("terminate called without an active exception")
    with closing(iter(first)) as rows:
        for step, row in enumerate(islice(rows, args.steps)):
            print(f"step {step}: {row['id']} ({len(row['ir'].splitlines())} IR lines)")
    state = first.state_dict()
    print("checkpoint:", json.dumps(state)[:200])

    # a restarted trainer builds the same stream and resumes from the checkpoint
    resumed = stream()
    resumed.load_state_dict(state)
    with closing(iter(resumed)) as rows:
        row = next(rows)
    print(f"resumed: epoch {resumed.epoch}, next row {row['id']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
