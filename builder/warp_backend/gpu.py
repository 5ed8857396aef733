"""GPU evidence for the gpu-verified config: the same kernel and inputs on a CUDA device and on the CPU.

The comparison itself (``execute.compare``) is device-agnostic; ``compare_devices`` takes the device so the
batching and failure handling are tested CPU-vs-CPU too.
"""

from __future__ import annotations

import numpy as np
import warp as wp

from builder.configs import UNITS
from builder.warp_backend import execute
from builder.warp_backend.compile_units import bisect, name_disjoint_batches
from builder.warp_backend.verify import Item, cpu_loaded, python_names


def device_facts(device: str = "cuda:0") -> dict:
    d = wp.get_device(device)
    if not d.is_cuda:
        return {"gpu_name": d.name, "gpu_compute_capability": "", "gpu_driver": ""}
    cc = d.arch  # e.g. 90
    driver = wp.get_cuda_driver_version() if hasattr(wp, "get_cuda_driver_version") else None
    if isinstance(driver, int):
        driver = f"{driver // 1000}.{(driver % 1000) // 10}"
    elif isinstance(driver, tuple):
        driver = ".".join(str(v) for v in driver)
    return {"gpu_name": d.name, "gpu_compute_capability": f"{cc // 10}.{cc % 10}", "gpu_driver": str(driver or "")}


def compare_devices(
    items: list[Item], per_pass: dict[str, list[Item | None]], device: str = "cuda:0", batch_size: int = 16
) -> None:
    """Set ``item.gpu`` on every pass's item: forward rows compare outputs, backward rows outputs and gradients.

    ``items[k]`` and ``per_pass[cfg][k]`` are the same program (None: no row of that pass). Programs are
    loaded into one Warp module per batch of one launch block_dim, so two programs that define the same
    helper name never share one (Warp would emit both under one symbol); a program that fails to load or
    launch on either device is recorded as a mismatch with the error, and the rest of its batch is still
    compared.
    """
    facts = device_facts(device)
    position = {id(it): k for k, it in enumerate(items)}

    def compare(it: Item, ns: dict) -> None:
        kernel = ns[it.program.kernel_name]
        runs = {
            d: execute.run(it.program, kernel, ns, np.random.default_rng(it.input_seed), d, it.program.backward)
            for d in (device, "cpu")
        }
        for unit, plist in per_pass.items():
            if plist[position[id(it)]] is None:
                continue
            a, b = runs[device], runs["cpu"]
            if UNITS[unit].pass_ == "forward":  # outputs only: a forward unit's rows carry no gradients
                a, b = execute.Run(a.outputs, {}, a.inits), execute.Run(b.outputs, {}, b.inits)
            match, abs_err, rel_err = execute.compare(a, b, it.program)
            plist[position[id(it)]].gpu = {"gpu_match": match, "max_abs_err": abs_err, "max_rel_err": rel_err, **facts}

    def attempt(batch: list[Item]) -> None:
        with cpu_loaded(batch, "wcir_gpu") as namespaces:  # the device build happens at each kernel's launch
            for it, ns in zip(batch, namespaces):
                compare(it, ns)

    def fail(it: Item, msg: str) -> None:
        for plist in per_pass.values():
            item = plist[position[id(it)]]
            if item is None:
                continue
            item.gpu = {"gpu_match": False, "max_abs_err": None, "max_rel_err": None, **facts}
            item.evidence.error = f"{device}: {msg}"[:500]

    # One block_dim per module. Our modules set strip_hash (emitted names carry no hash), and with it Warp names
    # the cached binary without the block_dim and reuses it: a tile kernel launched at 32 after its module was
    # built at 256 (or 64) ran the other build, with wrong results (31 of 95 tile programs on an H100, errors
    # up to 1.8e38); each program alone matched the CPU at every block_dim from 32 to 256.
    for block_dim in sorted({it.program.block_dim for it in items}):
        same = [it for it in items if it.program.block_dim == block_dim]
        for batch in name_disjoint_batches(same, batch_size, python_names):
            bisect(batch, attempt, fail)
