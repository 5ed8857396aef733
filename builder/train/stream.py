"""The train split as a trainer reads it: streamed, shuffled in a buffer, split by rank, resumable, endless.

``datasets`` checkpoints the position of the stream (``IterableDataset.state_dict()``), not the content of its
shuffle buffer: after a resume the buffer is refilled from the saved source position, so within the epoch that
was interrupted some rows that sat in the buffer are not seen and some read just before the checkpoint may be
seen again, at most ``buffer_size`` each (tested); every row outside the buffer is seen exactly once. With
``buffer_size=0`` a resumed run reads exactly the rows an uninterrupted one would.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from builder.errors import ConfigError
from builder.rng import stable_int

COLUMNS = ["id", "python_source", "target", "pass", "ir"]  # all a prompt and its completion need


def rank_from_env() -> tuple[int, int]:
    """(rank, world size) from ``RANK`` / ``WORLD_SIZE``, as ``torchrun`` sets them; (0, 1) alone."""
    try:
        rank, world = int(os.environ.get("RANK", "0")), int(os.environ.get("WORLD_SIZE", "1"))
    except ValueError as exc:
        raise ConfigError(f"RANK and WORLD_SIZE must be integers: {exc}") from exc
    if not 0 <= rank < world:
        raise ConfigError(f"RANK must be in [0, WORLD_SIZE), got RANK={rank} WORLD_SIZE={world}")
    return rank, world


def open_split(data: str, config: str, split: str, extra: tuple[str, ...] = ()):
    """A streamed split of a built folder or a Hub id, reduced to the columns training reads (and those of ``extra``
    the config has: scoring reads a real row's ``split_group``)."""
    import datasets

    from builder.schema import columns

    try:
        ds = datasets.load_dataset(str(data), config, split=split, streaming=True)
    except (FileNotFoundError, ValueError) as exc:  # a missing folder, config or split
        raise ConfigError(f"cannot stream {config}/{split} from {str(data)!r}: {exc}".splitlines()[0]) from exc
    return ds.select_columns(COLUMNS + [c for c in extra if c in columns(config)])


def mixed(ds, config: str, seed: int, mix_data: str, mix_config: str, share: float):
    """``ds`` with train rows of ``mix_config`` (a config holding every target and pass: real's written code) of
    ``config``'s target and pass drawn in ``share`` of the rows, in a seeded order; the smaller side is repeated
    until both are exhausted, so an epoch still reads every row of ``ds``. Share 1: those rows alone."""
    import datasets

    from builder.configs import UNITS

    target, pass_, _ = UNITS[config].as_tuple()
    extra = open_split(mix_data, mix_config, "train").filter(lambda r: r["target"] == target and r["pass"] == pass_)
    if share >= 1:  # interleaving with a probability of 0 would never exhaust ``ds``: an endless first epoch
        return extra
    return datasets.interleave_datasets(
        [ds, extra],
        probabilities=[1 - share, share],
        seed=stable_int(seed, "train", "mix", bits=32),
        stopping_strategy="all_exhausted",
    )


class RowStream:
    """Endless rows of one rank: each pass over the split is an epoch with its own shuffle order."""

    def __init__(
        self,
        data: str,
        config: str,
        seed: int,
        buffer_size: int,
        rank: int = 0,
        world_size: int = 1,
        rows: int = 0,
        mix: tuple[str, str, float] | None = None,
    ):
        from datasets.distributed import split_dataset_by_node

        ds = open_split(data, config, "train")
        if rows:  # before the shuffle: ``take`` keeps the shard order fixed, so every epoch sees the same rows
            ds = ds.take(rows)
        if mix:
            ds = mixed(ds, config, seed, *mix)
        if buffer_size:
            # one seed on every rank: the shard order is permuted the same way, so ranks stay disjoint
            ds = ds.shuffle(seed=stable_int(seed, "train", "shuffle", bits=32), buffer_size=buffer_size)
        self.ds = split_dataset_by_node(ds, rank=rank, world_size=world_size)
        self.epoch = 0

    def state_dict(self) -> dict:
        """The position after the last row yielded (``datasets``' own state, which records the epoch)."""
        return self.ds.state_dict()

    def load_state_dict(self, state: dict) -> None:
        self.ds.load_state_dict(state)
        self.epoch = state["epoch"]

    def __iter__(self) -> Iterator[dict]:
        empty = 0  # a resumed epoch can be at its end already; two empty epochs in a row mean no rows at all
        while empty < 2:
            self.ds.set_epoch(self.epoch)
            empty += 1
            for row in self.ds:
                empty = 0
                yield row
            self.epoch += 1
        raise ConfigError("the train split streams no rows for this rank (too few shards or rows?)")
