"""The row schema of every config: used by the builder, the folder writer, the validator and the card.

``FIELDS`` holds every column any config has; ``features(config)`` is the columns that config fills (a cpu row
has no PTX, only gpu-verified rows have GPU columns, real rows have no execution columns and add
``source_path``). ``FIELD_DOCS`` explains every column; the dataset card renders it per config.
"""

from __future__ import annotations

import datasets

from builder import configs as _configs
from builder.rng import SPLITS  # noqa: F401 - the split names, defined with the coordinates they are part of

_S, _B, _I64, _I32, _F64, _BIN = (datasets.Value(t) for t in ("string", "bool", "int64", "int32", "float64", "binary"))

FIELDS: dict[str, tuple[object, str]] = {
    "id": (_S, "Stable row id: CONFIG/SPLIT/SEED/INDEX."),
    "config": (
        _S,
        "Config name (cuda-forward, cuda-backward, cpu, gpu-verified, real, derived, standalone, repair, repair-real).",
    ),
    "seed": (_I64, "Build seed; with split and index it regenerates the row exactly."),
    "split": (_S, "train, validation or test."),
    "index": (_I64, "Row index within its split."),
    "attempt": (_I32, "How many candidate programs were drawn before one fell in this split's partition."),
    "category": (
        _S,
        "Generation policy (arithmetic, math, vector, ... combined); "
        "real: examples, library or tests (what the code is for in its package).",
    ),
    "kernel_name": (_S, "Name of the @wp.kernel function; emitted C++ names are derived from it."),
    "python_source": (
        _S,
        "Self-contained Python: imports, @wp.struct/@wp.func helpers and the @wp.kernel `kernel_name`, the last "
        "kernel of the module (a generated module may hold sibling kernels before it).",
    ),
    "broken_source": (
        _S,
        "repair only: python_source with one seeded edit (see mutation) that Warp rejects; the prompt of the repair"
        " task, with diagnostic.",
    ),
    "mutation": (
        _S,
        "repair only: the edit that broke the kernel: undefined_name, unknown_builtin, builtin_arity, function_arity,"
        " literal_type, index_count, index_type, unsupported_construct, missing_annotation, kernel_return or"
        " array_rebind.",
    ),
    "diagnostic_class": (
        _S,
        "repair only: the class of the exception Warp raised for broken_source (WarpCodegenError, RuntimeError, ...).",
    ),
    "diagnostic": (
        _S,
        "repair only: the exception's message as a user reads it; the kernel's file is named kernel.py and no"
        " directory of the building machine appears.",
    ),
    "diagnostic_line": (
        _I32,
        "repair only: the line of broken_source the diagnostic names (null where it names none).",
    ),
    "diff": (_S, "repair only: unified diff from broken_source to python_source (the repair)."),
    "fixed_id": (
        _S,
        "repair only: the id of the row of python_source whose inputs and outputs judge a repair (warp-cuda-ir"
        " evaluate): repair, the cpu config's row of the same seed, split and index; repair-real, real's cpu row.",
    ),
    "target": (_S, "cuda or cpu."),
    "pass": (_S, "forward or backward (adjoint)."),
    "ir": (_S, "The function Warp emitted for this target and pass (the training target)."),
    "entry_point": (_S, 'Symbol to launch: the __global__ kernel (CUDA) or the extern "C" wrapper (CPU).'),
    "module_source": (
        _S,
        "Full translation unit Warp generated for the kernel's module, as Module.load (CPU) or"
        " compile_aot_module (CUDA) writes it: every kernel with its adjoint, so both CUDA passes of a program"
        " share it (compiles as is).",
    ),
    "module_options": (
        _S,
        "JSON: the module options the code was generated with, resolved by Warp as Module.load resolves them"
        " (default_grid_stride, block_dim, mode, enable_backward, output_arch, the MathDx switches, ...).",
    ),
    "cpu_program": (
        _S,
        "standalone only: a complete C++ program: Warp's CPU unit (its `#define WP_NO_CRT` commented out) and a"
        " host main that reads inputs.bin, calls the forward entry point once and prints every output array."
        " Build: g++ -std=c++17 -O2 -I<warp>/native kernel_cpu.cpp.",
    ),
    "cuda_program": (
        _S,
        "standalone only: a complete CUDA program: Warp's CUDA unit (WP_NO_CRT commented out) and a host main"
        " that copies inputs.bin to the GPU, launches the forward __global__ kernel with Warp's launch bounds and"
        " block size, copies the outputs back and prints them. Build: nvcc -std=c++17 -O2 -arch=sm_90"
        " -DWP_ENABLE_CUDA=1 -I<warp>/native kernel.cu.",
    ),
    "makefile": (_S, "standalone only: Makefile building both programs and the PTX (make run, make run-cuda)."),
    "inputs": (
        _BIN,
        "standalone only: the bytes of inputs.bin: every argument in signature order, each 16-byte aligned, as"
        " Warp passes it (an array's elements, a value's packed form); the programs' comments give each range.",
    ),
    "expected_output": (
        _S,
        "standalone only: Warp's own CPU run of the same launch, printed as the programs print their outputs"
        " (one line per output array: `name: v0 v1 ...`).",
    ),
    "arg_names": (datasets.Sequence(_S), "Kernel argument names in signature order."),
    "arg_types": (datasets.Sequence(_S), "Warp types of the arguments, e.g. array(dtype=vec3, ndim=1)."),
    "arg_roles": (
        datasets.Sequence(_S),
        "in, inout (read, then written in place), index, out, acc (atomic target) or param (a scalar, a struct,"
        " or a uint64 mesh / hash-grid / volume handle the executor builds).",
    ),
    "arg_shapes": (datasets.Sequence(datasets.Sequence(_I32)), "Array shapes used when executing ([] for params)."),
    "launch_dims": (
        _I32,
        "Dimensions of launch_shape (1-3); wp.launch_tiled adds the block as one more, which a tile kernel's"
        " wp.tid() may also return (i, lane = wp.tid()).",
    ),
    "launch_shape": (datasets.Sequence(_I32), "Launch grid used when executing."),
    "block_dim": (
        _I32,
        "Threads per block of a tile kernel's wp.launch_tiled (its CUDA units are built for it, as"
        " WP_TILE_BLOCK_DIM); 0 for wp.launch (CUDA builds for 256). CPU units are built for 1, as Warp runs"
        " them.",
    ),
    "builtins": (datasets.Sequence(_S), "Warp builtins the kernel uses: wp.* calls and operator builtins, sorted."),
    "source_lines": (_I32, "Non-empty lines of python_source."),
    "ir_lines": (_I32, "Lines of ir."),
    "warp_version": (_S, "warp-lang version that generated and compiled the row."),
    "generator_version": (_S, "Version of this project's kernel generator."),
    "source_sha256": (_S, "SHA-256 of python_source."),
    "ir_sha256": (_S, "SHA-256 of ir."),
    "normalized_sha256": (_S, "SHA-256 of the program with identifiers and literals normalized (dedup key)."),
    "verify": (
        _S,
        "Verification level the row was built with: none, compile or execute (derived: the level the row reached;"
        " execute only where its run passed every execution check).",
    ),
    "compiled": (
        _B,
        "The row's module compiled for its target (NVRTC sm_90 PTX, or Warp's CPU compiler); a generated module's"
        " sibling kernels before the row's are left out of that build (validate compiles sampled whole modules).",
    ),
    "compile_target": (_S, "sm_90 or cpu."),
    "toolchain": (
        _S,
        "JSON: what produced the code: warp-lang version and build commit (null when the wheel records none),"
        ' then NVRTC version and CUDA arch (CUDA rows) or Warp\'s CPU compiler (CPU rows), e.g. {"cuda_arch":'
        ' "sm_90", "nvrtc": "13.4", "warp": "1.19.0", "warp_git_commit": null}.',
    ),
    "ptx": (
        _S,
        "PTX of this row's entry point only: this pass, this kernel (CUDA rows; null for CPU rows), from the module's"
        " unit without the sibling kernels before the row's.",
    ),
    "ptx_instructions": (_I32, "PTX instructions in that entry point."),
    "ptx_registers": (_I32, "PTX virtual registers declared in that entry point (not physical registers)."),
    "executed": (
        _B,
        "The kernel (and its adjoint) ran on the CPU with seeded inputs. derived: in Warp's debug build, on inputs"
        " built from the argument types (null: an argument cannot be built from its type; false: Warp raised or a"
        " bounds check failed).",
    ),
    "outputs_finite": (_B, "All outputs finite (derived: every float array after the launches)."),
    "outputs_nondegenerate": (
        _B,
        "Every output changed from its initial value and is not constant (derived: each launch changed some array).",
    ),
    "grads_finite": (_B, "All input gradients of the backward pass finite."),
    "output_checksum": (_S, "Checksum of the outputs (5 significant digits)."),
    "grad_checksum": (_S, "Checksum of the input gradients (unit output adjoints)."),
    "cpu_program_match": (
        _B,
        "standalone only: cpu_program, built with g++ and run, printed outputs equal to Warp's CPU run within the"
        " GPU-vs-CPU tolerances (null under verify compile / none).",
    ),
    "cuda_program_compiled": (
        _B,
        "standalone only: nvcc built cuda_program to an sm_90 executable and PTX holding the forward kernel.",
    ),
    "gpu_match": (_B, "gpu-verified only: GPU and CPU outputs and gradients agree within tolerance."),
    "max_abs_err": (_F64, "gpu-verified only: largest absolute GPU-vs-CPU difference."),
    "max_rel_err": (_F64, "gpu-verified only: largest relative difference beyond the absolute tolerance."),
    "gpu_name": (_S, "gpu-verified only: CUDA device name."),
    "gpu_compute_capability": (_S, "gpu-verified only: e.g. 9.0."),
    "gpu_driver": (_S, "gpu-verified only: CUDA driver version."),
    "source_path": (_S, "real: file and line of the kernel in its package, e.g. newton/_src/sim/ik.py:42."),
    "derived_from": (_S, "derived: the id of the real train row (without its unit) the kernel was derived from."),
    "transforms": (
        datasets.Sequence(_S),
        "derived: the transformations applied, in order (constants, swap, reorder, inline, outline, precision, rename)",
    ),
    "package": (_S, "real: the package (its PyPI distribution name) the kernel ships in, e.g. newton."),
    "package_version": (_S, "real: the package's exact version the row was collected from."),
    "license": (
        _S,
        "real: SPDX id of the licence of the kernel's source (its file's header, else its package's).",
    ),
    "copyright": (
        _S,
        "real: the copyright notice of the kernel's file (else its package's); keep it with the row.",
    ),
    "qualified_name": (_S, "real: module and Python qualified name of the kernel's function."),
    "split_group": (
        _S,
        "real: what the kernel's package is to the splits: in-project (split by module: unseen modules of seen"
        " packages in validation and test), held-out (the whole package in test) or train-only (a training"
        " package, all in train).",
    ),
}

FIELD_DOCS = {k: doc for k, (_, doc) in FIELDS.items()}
GPU_FIELDS = ("gpu_match", "max_abs_err", "max_rel_err", "gpu_name", "gpu_compute_capability", "gpu_driver")
PTX_FIELDS = ("ptx", "ptx_instructions", "ptx_registers")
EXEC_FIELDS = (
    "executed",
    "outputs_finite",
    "outputs_nondegenerate",
    "grads_finite",
    "output_checksum",
    "grad_checksum",
)
# what only a drawn program has: its coordinates and the inputs it was executed with
GENERATED_ONLY = ("seed", "index", "attempt", "arg_roles", "arg_shapes", "launch_dims", "launch_shape", "block_dim")
REAL_ONLY = ("source_path", "package", "package_version", "license", "copyright", "qualified_name", "split_group")
DERIVED_ONLY = ("derived_from", "transforms")
STANDALONE_ONLY = (
    "cpu_program",
    "cuda_program",
    "makefile",
    "inputs",
    "expected_output",
    "cpu_program_match",
    "cuda_program_compiled",
)
REPAIR_ONLY = ("broken_source", "mutation", "diagnostic_class", "diagnostic", "diagnostic_line", "diff", "fixed_id")
# a repair row: the drawn program (the working kernel), how it was broken and what Warp said, and the evidence of the
# working kernel (the cpu config's row of the same program holds the same)
REPAIR_COLUMNS = (
    *("id", "config", "seed", "split", "index", "attempt", "category", "kernel_name", "python_source"),
    *REPAIR_ONLY,
    *("arg_names", "arg_types", "builtins", "source_lines", "warp_version", "generator_version", "source_sha256"),
    *("normalized_sha256", "verify", "compiled", "compile_target", "toolchain", *EXEC_FIELDS),
)
# a repair-real row: a written kernel (real's train row it was broken from: its licence, attribution and compile
# evidence), how it was broken and what Warp said
REPAIR_WRITTEN_COLUMNS = (
    *("id", "config", "seed", "split", "index", "category", "kernel_name", "python_source", *REPAIR_ONLY),
    *("arg_names", "arg_types", "builtins", "source_lines", "warp_version", "generator_version", "source_sha256"),
    *("normalized_sha256", "verify", "compiled", "compile_target", "toolchain", *REAL_ONLY[:-1]),
)
# a standalone row: the drawn program, its two programs and their evidence (no ir: the programs hold the units)
STANDALONE_COLUMNS = (
    *("id", "config", "seed", "split", "index", "attempt", "category", "kernel_name", "python_source"),
    *STANDALONE_ONLY,
    *("arg_names", "arg_types", "arg_roles", "arg_shapes", "launch_dims", "launch_shape", "block_dim", "builtins"),
    *("source_lines", "warp_version", "generator_version", "source_sha256", "normalized_sha256", "verify"),
    *("toolchain", "output_checksum"),
)


def columns(config: str) -> tuple[str, ...]:
    """The columns ``config`` fills, in schema order: what its spec (builder.configs) says its rows hold."""
    if config not in _configs.REGISTRY:
        raise ValueError(f"unknown config {config!r}; valid: {', '.join(_configs.CONFIGS)}")
    spec = _configs.spec(config)
    if spec.programs:
        return tuple(k for k in FIELDS if k in STANDALONE_COLUMNS)
    if spec.repair:
        return tuple(k for k in FIELDS if k in (REPAIR_WRITTEN_COLUMNS if spec.written else REPAIR_COLUMNS))
    drop = set(STANDALONE_ONLY + REPAIR_ONLY)
    if spec.shipped:
        drop |= set(GENERATED_ONLY + EXEC_FIELDS + GPU_FIELDS + DERIVED_ONLY)
    elif spec.derived:  # a written kernel's columns, its seed and index, what it was derived from, its run's evidence
        drop |= set(GENERATED_ONLY[2:] + EXEC_FIELDS[4:] + GPU_FIELDS) | {"split_group"}
    else:
        drop |= set(REAL_ONLY + DERIVED_ONLY) | (set() if spec.gpu else set(GPU_FIELDS))
    if not spec.ptx:
        drop |= set(PTX_FIELDS)
    return tuple(k for k in FIELDS if k not in drop)


def features(config: str) -> datasets.Features:
    """The ``datasets.Features`` of one config."""
    return datasets.Features({k: FIELDS[k][0] for k in columns(config)})


def project(row: dict, config: str) -> dict:
    """A full record cut down to ``config``'s columns, in schema order."""
    return {k: row[k] for k in columns(config)}
