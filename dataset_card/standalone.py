"""The dataset card's section on the ``standalone`` config, computed from its Parquet shards."""

from __future__ import annotations

import json

from builder.built_folder import BuiltFolder

_COLUMNS = ["id", "kernel_name", "verify", "cpu_program_match", "cuda_program_compiled"]
_EXAMPLE = ["id", "python_source", "cpu_program", "expected_output", "toolchain", "inputs"]
HOST_MARKER = "// Host program (not emitted by Warp)."

INTRO = """The `standalone` config turns each drawn program into two complete programs that build without Python
or Warp's runtime library: `cpu_program` (Warp's CPU unit and a host `main` that reads the kernel's inputs,
calls the forward entry point once and prints every output array) and `cuda_program` (Warp's CUDA unit and a host
`main` that copies the inputs to the GPU, launches the `__global__` forward kernel with Warp's launch bounds and
block size and prints the outputs), with a `makefile` and the inputs themselves (`inputs`, the bytes of
`inputs.bin`: each argument as Warp passes it, 16-byte aligned). `expected_output` is Warp's own CPU run of the
same launch, printed as the programs print. The only dependency is warp-lang's header-only `native` folder
(`pip install warp-lang`; its `crt.cpp` is compiled along, as the Makefile shows). One line of Warp's unit is
changed: `#define WP_NO_CRT` is commented out, since the programs use the system's C runtime. Kernels that take a
mesh, hash grid or volume (objects Warp's runtime library builds) and kernels that use tile functions (Warp's tile
headers rely on NVRTC compiling every function for the device, which nvcc does not do) have no standalone row."""

WRITE = """```python
from datasets import load_dataset

row = load_dataset({source}, "standalone", split="{split}")[0]
for name, column in [("kernel_cpu.cpp", "cpu_program"), ("kernel.cu", "cuda_program"), ("Makefile", "makefile")]:
    open(name, "w").write(row[column])
open("inputs.bin", "wb").write(row["inputs"])
```

```bash
make run        # g++ builds kernel_cpu and runs it on inputs.bin; compare with row["expected_output"]
make run-cuda   # nvcc builds kernel_cuda (sm_90) and runs it on a GPU
```"""


def section(folder: BuiltFolder, config: str, source: str) -> str:
    """Markdown for a whole-program config, or "" when the folder has none. ``source``: what load_dataset reads."""
    files = folder.files.get(config)
    if not files:
        return ""
    rows = folder.read(config, _COLUMNS).to_pylist()
    if not rows:
        return ""
    n = len(rows)
    match = sum(bool(r["cpu_program_match"]) for r in rows)
    nvcc = sum(bool(r["cuda_program_compiled"]) for r in rows)
    levels = ",".join(sorted({r["verify"] for r in rows}))
    table = (
        "| rows | verify | C++ program (g++) prints Warp's CPU outputs | CUDA program built by nvcc (exe + PTX) |\n"
        "|---|---|---|---|\n"
        f"| {n} | {levels} | {match} ({100 * match / n:.1f}%) | {nvcc} ({100 * nvcc / n:.1f}%) |"
    )
    split = next(iter(files))
    first = folder.first_row(config, split, _EXAMPLE)
    tc = json.loads(first["toolchain"])
    host = first["cpu_program"][first["cpu_program"].find(HOST_MARKER) :]
    out = first["expected_output"]
    out = out if len(out) < 400 else out[:400].rsplit(" ", 1)[0] + " ..."
    return (
        "## Standalone programs\n\n"
        f"{INTRO}\n\n{table}\n\n"
        f"Flags: g++ `{tc.get('cxx_flags')}`, nvcc `{tc.get('nvcc_flags')}` (any C++17 compiler and CUDA 12.8 or "
        "newer, for sm_90). Build and run one row:\n\n"
        + WRITE.format(source=source, split=split)
        + f"\n\nRow `{first['id']}` ({len(first['inputs'])} bytes of inputs): the kernel\n\n"
        f"```python\n{first['python_source'].rstrip()}\n```\n\n"
        f"and the host part of its `cpu_program` (Warp's unit comes before it):\n\n```cpp\n{host.rstrip()}\n```\n\n"
        f"`expected_output`:\n\n```\n{out.rstrip()}\n```\n"
    )
