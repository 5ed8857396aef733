"""Launch one loaded kernel on several input trials and return host copies of every array it could touch.

The module is compiled once and each trial only allocates inputs and launches, so trials cost milliseconds next
to the compile. For each trial ``k`` the result holds, by name (a struct array's fields as ``NAME.FIELD``):

- ``k/pre/NAME`` and ``k/out/NAME``: every array argument before and after the forward launch;
- for backward rows, ``k/pregrad/NAME`` and ``k/grad/NAME``: the gradients compared, once seeded (an incoming
  gradient of one on each output) and after the adjoint launch.

The ``pre`` states let the evaluator see what an empty function body would have left: nothing changed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np
import warp as wp

from builder.grammar.program import Program
from builder.grammar.scope import ArrayArg
from builder.warp_backend import execute


@dataclass
class Prepared:
    """One trial's launch: its arguments and which of them are compared."""

    args: list
    arrays: dict[str, wp.array]  # every array argument, compared after the forward launch
    grads: dict[str, wp.array]  # arrays whose gradient is compared after the adjoint launch
    seeds: list[wp.array]  # arrays that receive an incoming gradient of one
    launch: tuple[int, ...]
    block_dim: int = 0  # a tile kernel's threads per block (wp.launch_tiled); 0 for wp.launch
    keep: list = field(default_factory=list)  # scene objects (meshes, grids) whose ids the arguments hold


def host(name: str, values: np.ndarray) -> dict[str, np.ndarray]:
    """``values`` by name, a structured array (an array of structs) split into one entry per field."""
    if values.dtype.names is None:
        return {name: values.copy()}
    out: dict[str, np.ndarray] = {}
    for f in values.dtype.names:
        out |= host(f"{name}.{f}", values[f])
    return out


def _snapshot(prefix: str, arrays: dict[str, wp.array]) -> dict[str, np.ndarray]:
    out: dict[str, np.ndarray] = {}
    for name, arr in arrays.items():
        out |= host(f"{prefix}/{name}", arr.numpy())
    return out


def run(kernel, prepare: Callable[[object], Prepared], trials: list, device: str, backward: bool) -> dict:
    """Every trial's arrays (see the module docstring), each trial's inputs from ``prepare(trial)``."""
    out: dict[str, np.ndarray] = {}
    for k, trial in enumerate(trials):
        p = prepare(trial)
        out |= _snapshot(f"{k}/pre", p.arrays)
        tape = wp.Tape()
        with tape:
            if p.block_dim:
                wp.launch_tiled(kernel, dim=p.launch, inputs=p.args, block_dim=p.block_dim, device=device)
            else:
                wp.launch(kernel, dim=p.launch, inputs=p.args, device=device)
        out |= _snapshot(f"{k}/out", p.arrays)
        if backward and p.grads:
            for s in p.seeds:
                s.grad.fill_(1.0)
            out |= _snapshot(f"{k}/pregrad", {n: a.grad for n, a in p.grads.items()})
            tape.backward()
            out |= _snapshot(f"{k}/grad", {n: a.grad for n, a in p.grads.items()})
        tape.reset()
        del p  # the scene objects outlive every launch that used their ids
    return out


def generated(program: Program, ns: dict, device: str) -> Callable[[object], Prepared]:
    """Inputs of a generated program for a trial: ``execute.make_args`` on its seed, at its launch shape."""

    def prepare(trial) -> Prepared:
        prog = replace(program, launch_shape=tuple(trial.launch)) if trial.launch else program
        args, outs, _, grad_inputs, keep = execute.make_args(prog, ns, np.random.default_rng(trial.seed), device)
        arrays = {a.name: v for a, v in zip(prog.args, args) if isinstance(a, ArrayArg)}
        seeds = [v for v in outs.values() if v.requires_grad]
        return Prepared(args, arrays, grad_inputs, seeds, prog.launch_shape, prog.block_dim, keep)

    return prepare
