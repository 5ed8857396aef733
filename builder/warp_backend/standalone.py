"""What a standalone program needs from Warp: the launch it makes, the bytes it reads, the outputs it should print.

The inputs are the ones the row's execution evidence used (``execute.make_args`` with the row's input seed), taken
as the bytes Warp hands the kernel: an array's memory, a value's packed form (``packed_value``). The
launch bounds are the ones Warp's launcher builds (``launch_bounds``). Warp's own CPU run of the same
launch gives the reference the compiled program is compared with.
"""

from __future__ import annotations

import ctypes
import re
from dataclasses import dataclass

import numpy as np
import warp as wp
from warp._src import context as _ctx

from builder.grammar.program import Param, Program
from builder.grammar.scope import ArrayArg
from builder.standalone.host import Bounds, HostArg, HostError, Launch, declared_types, launch_ndim, layout
from builder.warp_backend import execute

OUTPUT_ROLES = ("out", "inout", "acc")
_TILE = re.compile(r"\bwp\.tile")


@dataclass
class Prepared:
    launch: Launch
    inputs: bytes
    reference: execute.Run  # Warp's CPU run of the same launch (forward only)


def unsupported(program: Program) -> str:
    """Why ``program`` has no standalone form, or "": a mesh, hash grid or volume handle is an object Warp's
    runtime library (warp.so) builds, which a header-only program cannot."""
    handles = sorted({a.handle.split(":")[0] for a in program.args if isinstance(a, Param) and a.handle})
    if handles:
        return f"needs warp.so to build its {', '.join(handles)}"
    if _TILE.search(program.source):
        # tile_sum, tile_extract, ... are plain templates that NVRTC compiles for the device because Warp asks it
        # to (--device-as-default-execution-space); nvcc has no such switch and rejects them as host functions
        return "uses tile functions (Warp's tile headers need NVRTC's device-default execution space)"
    if any(a.dtype.kind == "struct" for a in program.arrays(*OUTPUT_ROLES)):
        return "an output array of structs (the host prints scalars)"
    return ""


def _array_bytes(arr) -> bytes:
    if not arr.is_contiguous:
        raise HostError(f"array of shape {arr.shape} is not contiguous")
    return ctypes.string_at(arr.ptr, arr.capacity) if arr.capacity else b""


def describe(program: Program, ns: dict, cpu_unit: str, cuda_unit: str, input_seed: int) -> tuple[Launch, bytes]:
    """The launch of ``program`` and the bytes of its inputs. Needs the program's namespace (its source executed
    into a Warp module), not a compiled module: nothing is launched."""
    kernel = ns[program.kernel_name]
    rng = np.random.default_rng(input_seed)
    values, _, _, _, keep = execute.make_args(program, ns, rng, "cpu")
    blobs = [
        _array_bytes(v) if isinstance(a, ArrayArg) else packed_value(kernel, i, v)
        for i, (a, v) in enumerate(zip(program.args, values))
    ]
    del keep
    declared = declared_types(cpu_unit, program.kernel_name, "cpu")
    if [n for _, n in declared] != [a.name for a in program.args]:
        raise HostError(f"kernel {program.kernel_name!r}: the unit's arguments are {declared}")
    args = []
    for a, v, blob, offset, (cxx, _) in zip(program.args, values, blobs, layout([len(b) for b in blobs]), declared):
        is_out = isinstance(a, ArrayArg) and a.role in OUTPUT_ROLES
        args.append(
            HostArg(
                name=a.name,
                cxx_type=cxx,
                offset=offset,
                nbytes=len(blob),
                shape=tuple(v.shape) if isinstance(a, ArrayArg) else (),
                scalar=a.dtype.scalar if is_out else "",
                role=a.role if isinstance(a, ArrayArg) else "param",
            )
        )
    ndim = launch_ndim(cpu_unit, program.kernel_name)
    inputs = bytearray(max((x.offset + x.nbytes for x in args), default=0))
    for x, blob in zip(args, blobs):
        inputs[x.offset : x.offset + x.nbytes] = blob
    launch = Launch(
        kernel=program.kernel_name,
        args=tuple(args),
        cpu_bounds=Bounds(*launch_bounds(ndim, program.launch_shape, "cpu", program.block_dim)),
        cuda_bounds=Bounds(*launch_bounds(ndim, program.launch_shape, "cuda", program.block_dim)),
        cuda_block_dim=_tile_block_dim(cuda_unit),
    )
    return launch, bytes(inputs)


def prepare(program: Program, ns: dict, cpu_unit: str, cuda_unit: str, input_seed: int) -> Prepared:
    """``describe``, and Warp's own CPU run of the same launch; the module must be loaded for the CPU
    (``verify.cpu_loaded``)."""
    launch, inputs = describe(program, ns, cpu_unit, cuda_unit, input_seed)
    kernel = ns[program.kernel_name]
    reference = execute.run(program, kernel, ns, np.random.default_rng(input_seed), "cpu", backward=False)
    return Prepared(launch, inputs, reference)


def _tile_block_dim(cuda_unit: str) -> int:
    """The block size Warp launches the unit's kernels with: the one it was built for."""
    for line in cuda_unit.splitlines()[:8]:
        if line.startswith("#define WP_TILE_BLOCK_DIM "):
            return int(line.split()[-1])
    raise HostError("the CUDA unit defines no WP_TILE_BLOCK_DIM")


def flat_outputs(launch: Launch, outputs: dict[str, np.ndarray]) -> list[tuple[str, str, list]]:
    """(name, scalar, values in memory order) of each output the program prints, from a run's arrays."""
    return [(a.name, a.scalar, np.asarray(outputs[a.name]).ravel().tolist()) for a in launch.outputs]


def compare(printed: dict[str, list[float]], prepared: Prepared, program: Program) -> tuple[bool, float]:
    """The program's printed outputs against Warp's CPU run, with the tolerances GPU and CPU are compared with."""
    ref = prepared.reference.outputs
    if sorted(printed) != sorted(ref):
        return False, float("inf")
    mine = {}
    for name, values in printed.items():
        want = np.asarray(ref[name])
        if len(values) != want.size:
            return False, float("inf")
        mine[name] = np.asarray(values, dtype=np.float64).reshape(want.shape)
    match, max_abs, _ = execute.compare(execute.Run(mine, {}, {}), prepared.reference, program)
    return match, max_abs


def launch_bounds(kernel_dim: int, dim: tuple[int, ...], device: str, block_dim: int = 0):
    """(shape, size, coord_mult) of the ``wp::launch_bounds_t<kernel_dim>`` Warp passes for a launch over ``dim``
    on ``device``; ``block_dim`` > 0 is a ``wp.launch_tiled`` launch, whose resolved block becomes one more
    dimension (1 on the CPU, where Warp runs a block as one thread)."""
    if block_dim:  # CUDA launches the block it is asked for; the CPU resolves it (to 1 unless CPU blocks are on)
        dim = (*dim, block_dim if device != "cpu" else _ctx._resolve_launch_block_dim(wp.get_device("cpu"), block_dim))
    bounds = _ctx._build_launch_bounds_from_tuple(tuple(dim), kernel_dim)
    return tuple(bounds.shape), int(bounds.size), int(bounds.coord_mult)


def packed_value(kernel: _ctx.Kernel, index: int, value) -> bytes:
    """The bytes Warp passes for a non-array argument (a scalar, vector, matrix or struct) of ``kernel``."""
    arg = kernel.adj.args[index]
    return bytes(_ctx.pack_arg(kernel, arg.type, arg.label, value, wp.get_device("cpu")))
