"""The input trials a row is judged on: which seeds, which launch sizes.

One set of inputs can be matched by luck (a constant that happens to be right for these values, a branch these
values never take), so the reference and each prediction run on several trials and every one must agree. Seeds
come from ``builder.rng.stable_int`` on the row's coordinates plus a ``"trial"`` tag, a stream no other part of the
project draws from; the first trial of a generated row is the row's own inputs (``verify.input_seed``). The last
trial launches fewer threads where the program stays safe at that size (``resizable``), so a body that hard-codes
the launch size, or reads a neighbour's element it should not, fails.

Pure Python: the child that runs a trial (``builder.warp_backend.trial_run``) receives them as plain JSON.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from builder.errors import ConfigError
from builder.grammar.program import Param, Program
from builder.rng import derive_rng, stable_int
from builder.shipped.launches import trial_size

DEFAULT = 4


@dataclass(frozen=True)
class Trial:
    seed: int  # seeds numpy's default_rng for this trial's inputs
    launch: tuple[int, ...] = ()  # the launch shape; () = the row's own (generated rows)

    def as_json(self) -> dict:
        return {"seed": self.seed, "launch": list(self.launch)}

    @classmethod
    def from_json(cls, data: dict) -> Trial:
        return cls(int(data["seed"]), tuple(int(n) for n in data["launch"]))


def check_count(n: int) -> int:
    if not isinstance(n, int) or n < 1:
        raise ConfigError(f"--trials must be a positive integer, got {n!r}")
    return n


def resizable(program: Program) -> bool:
    """Whether the program stays in bounds and in its value ranges when launched with fewer threads.

    A smaller launch keeps every thread index inside the interval the generator assumed, and launch-shaped
    arrays shrink with it. What does not follow the launch size rules it out: arrays of a fixed shape, an int
    argument the kernel bounds itself by (passed exactly: ``n``, ``num_rows``), tile kernels (blocks), and an
    index array whose values may name an item past the smallest launch ``smaller`` gives (``other =
    indices[i]`` then ``thickness[other]``: its values are drawn for the row's launch, its arrays shrink).
    """
    if program.block_dim:
        return False
    smallest = fewest(program.launch_shape[0])
    for a in program.args:
        if isinstance(a, Param):
            if a.t.kind == "scalar" and a.t.is_int and a.iv[0] == a.iv[1] and not a.handle:
                return False
        elif a.shape or (a.role == "index" and a.iv[1] >= smallest):
            return False
    return True


def fewest(first: int) -> int:
    """The fewest threads ``smaller`` cuts a first dimension of ``first`` to: half of them, rounded up."""
    return max(1, (first + 1) // 2)


def smaller(launch: tuple[int, ...], rng) -> tuple[int, ...]:
    """The launch with its first dimension cut to between half and all but one of its threads."""
    first = launch[0]
    return (rng.randint(fewest(first), first - 1), *launch[1:]) if first > 1 else launch


def generated(row: dict, program: Program, n: int) -> list[Trial]:
    """The row's own inputs, then ``n - 1`` fresh draws; the last at a smaller launch where ``resizable``."""
    from builder.warp_backend.verify import input_seed

    coords = (row["seed"], row["split"], row["index"])
    out = [Trial(input_seed(*coords))]
    for k in range(1, n):
        out.append(Trial(stable_int(*coords, "inputs", "trial", k)))
    if n > 1 and resizable(program):
        last = smaller(program.launch_shape, derive_rng(*coords, "inputs", "trial", n - 1, "launch"))
        out[-1] = replace(out[-1], launch=last)
    return out


def kernel_id(row_id: str) -> str:
    """A real row's kernel, ``MODULE:KERNEL[SIGNATURE]`` (its id without config, split and unit): the three rows of
    one kernel share their trials, and a kernel keeps them whichever split it is in."""
    return row_id.split("/", 2)[-1].rsplit("/", 1)[0]


def real(row: dict, ndim: int, n: int) -> list[Trial]:
    """``n`` seeded trials of a shipped kernel launched over ``ndim`` equal dimensions; the last one smaller
    in all of them (its arrays shrink with it)."""
    key = kernel_id(row["id"])
    size = trial_size(ndim)
    out = [Trial(stable_int(key, "inputs", "trial", k), (size,) * ndim) for k in range(n)]
    if n > 1:
        (last,) = smaller((size,), derive_rng(key, "inputs", "trial", n - 1, "launch"))
        out[-1] = replace(out[-1], launch=(last,) * ndim)
    return out
