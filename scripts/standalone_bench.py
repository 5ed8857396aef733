"""What the standalone config costs, and how often its programs match Warp, on N drawn programs.

    python scripts/standalone_bench.py --seed 0 --rows 100 [--gpu] [--num-proc 1]

Draws train programs 0..N-1 and, in the same process, times (1) the floor: Warp's own CPU compile and run of
those programs as the ``cpu`` config's evidence does it (``verify.execute_cpu``, one Warp module per batch of 16)
and (2) the standalone build of the same programs (emit, Warp's reference run, g++ build and run, nvcc build to an
executable and PTX; with ``--gpu``, each CUDA program also runs on this machine's GPU and is compared with Warp's
CPU run). Prints the share of programs with a standalone form (and why the others have none), the
share whose C++ program matches Warp's CPU run, the nvcc compile rate, seconds per row by step, and the ratio of
the standalone build to the floor. ``--num-proc N`` builds N disjoint ranges of the rows at once (the GPU runs
share the one device); the ratio to the floor, which runs in one process, is then left out.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import Counter
from multiprocessing import get_context

from builder.build_options import BuildOptions
from builder.grammar.sample import sample
from builder.sources.standalone import rows as standalone_rows
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


def _build_range(job: tuple[int, int, int, bool]) -> tuple[list[tuple], Counter]:
    """One worker's rows ``lo..hi-1``: (index, None, Built) of each program with a standalone form, and the skips."""
    seed, lo, hi, gpu = job
    codegen.init()
    opts = BuildOptions(config="standalone", seed=seed, num_train=hi, on_invalid="skip")
    skipped: Counter[str] = Counter()
    built = [(i, None, b) for i, _, b in standalone_rows.programs(opts, "train", lo, hi, sample, skipped, gpu=gpu)]
    return built, skipped


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--rows", type=int, default=100, help="programs drawn (train rows 0..N-1)")
    p.add_argument("--gpu", action="store_true", help="also run each CUDA program on this machine's GPU")
    p.add_argument("--num-proc", type=int, default=1, help="processes building disjoint ranges of the rows")
    args = p.parse_args(argv)
    if args.num_proc < 1 or args.rows < 1:
        p.error("--rows and --num-proc must be positive")
    codegen.init()
    if args.gpu and not codegen.cuda_available():
        p.error("--gpu: Warp sees no CUDA device here")
    base = floor(args.seed, args.rows)
    step = -(-args.rows // args.num_proc)
    jobs = [(args.seed, lo, min(lo + step, args.rows), args.gpu) for lo in range(0, args.rows, step)]
    skipped: Counter[str] = Counter()
    built: list[tuple] = []
    start = time.perf_counter()
    if args.num_proc == 1:
        parts = [_build_range(jobs[0])]
    else:  # spawn: each worker initialises Warp (and its CUDA context) itself
        with get_context("spawn").Pool(args.num_proc) as pool:
            parts = pool.map(_build_range, jobs)
    for rows, skips in parts:
        built += rows
        skipped.update(skips)
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
        "num_proc": args.num_proc,
        "standalone_seconds": round(took, 1),
        "standalone_seconds_per_row": round(took / max(n, 1), 2),
        "floor_warp_cpu_compile_and_run_seconds": round(base, 1),
        "ratio_to_floor": round(took / base, 1) if base and args.num_proc == 1 else None,
        "failures": [(i, b.error[:300]) for i, _, b in built if False in (b.cpu_match, b.cuda_compiled, b.gpu_match)][
            :5
        ],
    }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
