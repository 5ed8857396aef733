"""Fault injection for the engine's failure tests: real crashes and errors inside real worker processes.

``$WARP_CUDA_IR_FAULTS`` names a directory; a file ``KIND@SHARD`` in it (``SHARD`` as in
``train-00001-of-00004``) makes the first attempt of that shard fail, and only the first: the attempt that
removes the marker is the one that fails, so a retry runs clean. Kinds:

- ``kill``: the worker process dies (``os._exit``) with its first file written but not committed;
- ``transient``: the shard raises ``TransientError`` (retried);
- ``bug``: the shard raises ``GeneratorBug`` for its first row (stops the build);
- ``full@card``: once every shard is built, writing the card fails as a full disk would (``OSError``).
"""

from __future__ import annotations

import errno
import os

from builder.errors import GeneratorBug, TransientError

ENV = "WARP_CUDA_IR_FAULTS"


def _take(kind: str, key: str) -> bool:
    root = os.environ.get(ENV)
    if not root:
        return False
    try:
        os.remove(os.path.join(root, f"{kind}@{key}"))
    except FileNotFoundError:
        return False
    return True


def at_start(key: str, seed: int, split: str, index: int) -> None:
    if _take("transient", key):
        raise TransientError(f"injected transient fault in shard {key}")
    if _take("bug", key):
        raise GeneratorBug(seed, split, index, "?", "injected fault")


def before_commit(key: str) -> None:
    if _take("kill", key):
        os._exit(1)


def before_card() -> None:
    if _take("full", "card"):
        raise OSError(errno.ENOSPC, "No space left on device (injected fault)")
