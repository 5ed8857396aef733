"""What the standalone config costs, and how often its programs match Warp, on N drawn programs.

    python scripts/standalone_bench.py --seed 0 --rows 100

Draws train programs 0..N-1 and, in the same process, times (1) the floor: Warp's own CPU compile and run of
those programs as the ``cpu`` config's evidence does it (``verify.execute_cpu``, one Warp module per batch of 16)
and (2) the standalone build of the same programs (emit, Warp's reference run, g++ build and run, nvcc build to an
executable and PTX; with ``--gpu``, each CUDA program also runs on this machine's GPU and is compared with Warp's
CPU run). Prints the share of programs with a standalone form (and why the others have none), the
share whose C++ program matches Warp's CPU run, the nvcc compile rate, seconds per row by step, and the ratio of
the standalone build to the floor.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import Counter

from builder.config import BuildOptions
from builder.grammar.sample import sample
from builder.sources.generated import standalone_rows
from builder.warp_backend import codegen, verify


def floor(seed: int, n: int) -> float:
    """Seconds Warp takes to compile (for the CPU) and run the drawn programs, batched as a build does."""
    opts = BuildOptions(config="cpu", seed=seed, num_train=n)
    items = []
    for index in range(n):
        program = sample(seed, "train", index, opts.categories).program
        tu = codegen.emit(str(index), program.source, f"bench_{index}", ("cpu",), block_dim=program.block_dim)
        items.append(verify.Item(str(index), program, tu["cpu"].tu, verify.input_seed(seed, "train", index)))
    start = time.perf_counter()
    verify.execute_cpu(items, 16)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--rows", type=int, default=100, help="programs drawn (train rows 0..N-1)")
    p.add_argument("--gpu", action="store_true", help="also run each CUDA program on this machine's GPU")
    args = p.parse_args(argv)
    codegen.init()
    if args.gpu and not codegen.cuda_available():
        p.error("--gpu: Warp sees no CUDA device here")
    base = floor(args.seed, args.rows)
    opts = BuildOptions(config="standalone", seed=args.seed, num_train=args.rows, on_invalid="skip")
    skipped: Counter[str] = Counter()
    start = time.perf_counter()
    built = list(standalone_rows.programs(opts, "train", 0, args.rows, sample, skipped, gpu=args.gpu))
    took = time.perf_counter() - start
    n = len(built)
    match = sum(b.cpu_match is True for _, _, b in built)
    nvcc = sum(b.cuda_compiled is True for _, _, b in built)
    steps = {k: [b.seconds[k] for _, _, b in built if k in b.seconds] for k in ("gxx", "run", "nvcc", "gpu_run")}
    gpu = [b for _, _, b in built if b.gpu_match is not None]
    errs = [b.cpu_max_abs_err for _, _, b in built if b.cpu_max_abs_err is not None]
    report = {
        "programs": args.rows,
        "with_standalone_form": n,
        "without": dict(sorted(skipped.items())),
        "cpu_program_match": f"{match}/{n}",
        "nvcc_compiled": f"{nvcc}/{n}",
        "max_abs_err": max(errs, default=None),
        "gpu_program_match": f"{sum(b.gpu_match for b in gpu)}/{len(gpu)}" if args.gpu else "not run (no --gpu)",
        "gpu_max_abs_err": max((b.gpu_max_abs_err for b in gpu if b.gpu_max_abs_err is not None), default=None),
        "seconds_per_row": {k: round(statistics.mean(v), 3) for k, v in steps.items() if v},
        "standalone_seconds": round(took, 1),
        "standalone_seconds_per_row": round(took / max(n, 1), 2),
        "floor_warp_cpu_compile_and_run_seconds": round(base, 1),
        "ratio_to_floor": round(took / base, 1) if base else None,
        "failures": [(i, b.error[:300]) for i, _, b in built if False in (b.cpu_match, b.cuda_compiled, b.gpu_match)][
            :5
        ],
    }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
