"""GPU evidence for the gpu-verified config: the same kernel and inputs on a CUDA device and on the CPU.

The comparison itself (``execute.compare``) is device-agnostic and is tested CPU-vs-CPU;
this module only adds the CUDA launch and the device facts.
"""

from __future__ import annotations

import uuid

import numpy as np
import warp as wp

from builder.warp_backend import codegen, execute
from builder.warp_backend.verify import Item


def device_facts(device: str = "cuda:0") -> dict:
    d = wp.get_device(device)
    cc = d.arch  # e.g. 90
    driver = wp.get_cuda_driver_version() if hasattr(wp, "get_cuda_driver_version") else None
    if isinstance(driver, int):
        driver = f"{driver // 1000}.{(driver % 1000) // 10}"
    return {"gpu_name": d.name, "gpu_compute_capability": f"{cc // 10}.{cc % 10}", "gpu_driver": str(driver or "")}


def compare_devices(items: list[Item], per_pass: dict[str, list[Item]], device: str = "cuda:0") -> None:
    """Set ``item.gpu`` on every pass's item: forward rows compare outputs, backward rows outputs and gradients."""
    facts = device_facts(device)
    module, namespaces = codegen.load_sources(
        [(it.label, it.program.source) for it in items], f"wcir_gpu_{uuid.uuid4().hex[:12]}"
    )
    try:
        codegen.load_cpu(module)
        module.load(device)
        for k, (it, ns) in enumerate(zip(items, namespaces)):
            kernel = ns[it.program.kernel_name]
            runs = {
                d: execute.run(it.program, kernel, ns, np.random.default_rng(it.input_seed), d, True)
                for d in (device, "cpu")
            }
            for cfg, plist in per_pass.items():
                gpu_run, cpu_run = runs[device], runs["cpu"]
                if cfg == "cuda-forward":
                    gpu_run = execute.Run(gpu_run.outputs, {}, gpu_run.inits)
                    cpu_run = execute.Run(cpu_run.outputs, {}, cpu_run.inits)
                match, abs_err, rel_err = execute.compare(gpu_run, cpu_run, it.program)
                plist[k].gpu = {"gpu_match": match, "max_abs_err": abs_err, "max_rel_err": rel_err, **facts}
    finally:
        codegen.release(module)
