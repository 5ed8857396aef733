"""Every exception the project raises, in one place.

Each subclasses a built-in, so callers can catch by kind (``ValueError`` for bad input, ``RuntimeError`` for a
failed build) without importing this module, and each message names what it can: the seed, split, index and
kernel of a row, the bad value with ``!r``, and what is allowed instead.
"""

from __future__ import annotations


class ConfigError(ValueError):
    """A bad option; the message says what is allowed."""


class GPURequired(ConfigError):
    """A GPU-only config or stage was asked for where no CUDA device is visible to Warp."""

    def __init__(self, what: str = "config 'gpu-verified'"):
        super().__init__(f"{what} requires a CUDA GPU, and none is visible to Warp")
        self.what = what

    def __reduce__(self):
        return GPURequired, (self.what,)


class OutputExists(FileExistsError):
    """The output path is taken and --overwrite was not given."""


class GeneratorBug(RuntimeError):
    """A generated row failed a check it must pass by construction; names the row to reproduce it."""

    def __init__(self, seed: int, split: str, index: int, kernel: str, reason: str):
        super().__init__(f"generator bug at seed={seed} split={split} index={index} kernel={kernel!r}: {reason}")
        self.fields = (seed, split, index, kernel, reason)

    def __reduce__(self):  # crosses process boundaries intact (num_proc > 1)
        return GeneratorBug, self.fields


class WarpRejected(ValueError):
    """Warp refused a generated program: always a generator bug, named by its coordinates."""

    def __init__(self, label: str, kernel: str, message: str):
        super().__init__(f"Warp rejected kernel {kernel!r} ({label}): {message}")
        self.label, self.kernel, self.message = label, kernel, message

    def __reduce__(self):
        return WarpRejected, (self.label, self.kernel, self.message)


class UsageError(ValueError):
    """A command was pointed at something it cannot use (a missing or malformed folder or file)."""


class PushError(RuntimeError):
    """A push stopped; ``code`` is the exit status that says at which step (usage, build, invalid, auth, ...)."""

    def __init__(self, message: str, code: int):
        super().__init__(message)
        self.code = code


class CorruptShard(ValueError):
    """A Parquet shard of a built folder cannot be read: truncated, overwritten, or not Parquet at all."""

    def __init__(self, folder: str, shard: str, reason: str, repair: str = ""):
        repair = repair or f"warp-cuda-ir build --out {folder} --overwrite"
        super().__init__(
            f"{shard!r} in {folder!r} is not a readable Parquet file ({reason}); rebuild it with `{repair}`"
        )
        self.folder, self.shard, self.reason, self.repair = folder, shard, reason, repair

    def __reduce__(self):
        return CorruptShard, (self.folder, self.shard, self.reason, self.repair)


class OutputUnusable(ConfigError):
    """The output path cannot be written (no permission, a file in the way, an unknown URL scheme)."""


class TransientError(OSError):
    """A failure a retry may cure (a storage hiccup, an injected fault); shard tasks are retried on it."""


class ShardFailed(RuntimeError):
    """A shard task kept failing after its retries; names the shard."""


class EvaluationInputError(ConfigError):
    """``evaluate`` was given predictions or data it cannot score (a malformed line, an unknown id, rows of
    another generator version); the message names the file and line, or the row."""


class ReferenceFailed(RuntimeError):
    """A row's own reference did not compile or run in the evaluation harness, so its predictions cannot be
    scored (most often a --timeout too short for a loaded machine)."""

    def __init__(self, row_id: str, reason: str):
        super().__init__(f"the reference of row {row_id!r} did not run ({reason}); nothing was scored")
        self.row_id, self.reason = row_id, reason

    def __reduce__(self):
        return ReferenceFailed, (self.row_id, self.reason)


class HarnessUnavailable(RuntimeError):
    """The evaluation harness could not run a row's own reference on this machine (``evaluate.preflight``), so no
    prediction is scored; the message says why."""

    def __init__(self, reason: str):
        super().__init__(f"the evaluation harness cannot run on this machine: {reason}")
        self.reason = reason

    def __reduce__(self):
        return HarnessUnavailable, (self.reason,)


class ExtractError(ValueError):
    """A shipped kernel's source could not be cut out of its module file."""

    def __init__(self, kernel: str, line: int, reason: str):
        super().__init__(f"cannot extract kernel {kernel!r} (line {line}): {reason}")
        self.fields = (kernel, line, reason)

    def __reduce__(self):
        return ExtractError, self.fields


class NotEvaluable(ValueError):
    """A shipped kernel cannot be run on inputs built from its argument types; the message is the reason."""


class SandboxUnavailable(RuntimeError):
    """bubblewrap could not make, or a child could not join, a prediction's sandbox; the message says why."""
