"""Every GPU-vs-CPU comparison of the gpu-verified config, mismatches included (a build leaves those out).

    python scripts/gpu_compare.py --programs 2000 --seed 0 --num-proc 16 --out DIR

Draws train programs 0..N-1 of the seed, runs each forward and backward on the CUDA device and on the CPU with
the same inputs, exactly as the gpu-verified config does (``warp_backend.gpu.compare_devices``), and writes
``DIR/compare.json`` (match rate and largest errors per pass and category) and ``DIR/mismatches.jsonl`` (id,
errors, the error text and the program of every mismatch). Needs a CUDA GPU visible to Warp.
"""

from __future__ import annotations

import collections
import json
import sys
import time
from multiprocessing import get_context
from pathlib import Path

from builder.cli import OneLineParser
from builder.grammar.sample import sample

CHUNK = 25


def _compare(job: tuple[int, int, int]) -> tuple[list[dict], float]:
    from builder.grammar.policy import CATEGORIES
    from builder.sources.drawn.records import emitted_configs
    from builder.warp_backend import codegen, verify
    from builder.warp_backend import gpu as gpu_verify

    seed, lo, hi = job
    start = time.perf_counter()
    passes = ("cuda-forward", "cuda-backward")
    drawn = [sample(seed, "train", i, CATEGORIES) for i in range(lo, hi)]
    per_pass: dict[str, list] = {c: [] for c in passes}
    for i, d in zip(range(lo, hi), drawn):
        mine = emitted_configs(d.program, passes)
        units = codegen.emit(f"index={i}", d.program.source, f"gc_{i}", mine, block_dim=d.program.block_dim)
        for c in passes:
            seed_i = verify.input_seed(seed, "train", i)
            per_pass[c].append(verify.Item(f"index={i}", d.program, units[c].tu, seed_i) if c in units else None)
    gpu_verify.compare_devices(per_pass["cuda-forward"], per_pass)
    out = []
    for c in passes:
        for i, d, it in zip(range(lo, hi), drawn, per_pass[c]):
            if it is None:
                continue
            row = {"id": f"train/{seed}/{i}/{c.split('-')[1]}", "category": d.program.category, "pass": c, **it.gpu}
            if not it.gpu["gpu_match"]:
                row |= {"error": it.evidence.error, "python_source": d.program.source}
            out.append(row)
    return out, time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    p = OneLineParser(prog="gpu_compare", description=__doc__.splitlines()[0])
    p.add_argument("--programs", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--num-proc", type=int, default=1)
    p.add_argument("--out", type=Path, required=True, help="folder for compare.json and mismatches.jsonl")
    args = p.parse_args(argv)
    if args.programs < 1 or args.num_proc < 1:
        p.error("--programs and --num-proc must be positive")
    if args.out.exists() and not args.out.is_dir():
        p.error(f"--out is not a folder: {str(args.out)!r}")
    from builder.warp_backend import codegen

    if not codegen.cuda_available():
        p.exit(2, "gpu_compare: no CUDA GPU visible to Warp\n")
    args.out.mkdir(parents=True, exist_ok=True)  # created once the run can start, so a refusal leaves nothing
    jobs = [(args.seed, lo, min(lo + CHUNK, args.programs)) for lo in range(0, args.programs, CHUNK)]
    start = time.perf_counter()
    with get_context("spawn").Pool(args.num_proc) as pool:
        parts = list(pool.imap(_compare, jobs))
    wall = time.perf_counter() - start
    rows = [r for part, _ in parts for r in part]
    # a worker's seconds per program: emit, both devices' builds and runs, both passes (Warp's compile included)
    timing = {
        "wall_seconds": round(wall, 1),
        "num_proc": args.num_proc,
        "process_seconds_per_program": round(sum(t for _, t in parts) / args.programs, 3),
    }
    by: dict[str, dict] = collections.defaultdict(lambda: {"rows": 0, "match": 0, "max_abs": 0.0, "max_rel": 0.0})
    for r in rows:
        for key in (f"all/{r['pass']}", f"{r['category']}/{r['pass']}"):
            a = by[key]
            a["rows"] += 1
            a["match"] += bool(r["gpu_match"])
            a["max_abs"] = max(a["max_abs"], r["max_abs_err"] or 0.0)
            a["max_rel"] = max(a["max_rel"], r["max_rel_err"] or 0.0)
    facts = {k: rows[0][k] for k in ("gpu_name", "gpu_compute_capability", "gpu_driver")} if rows else {}
    record = {"device": facts, "timing": timing, "by": dict(sorted(by.items()))}
    (args.out / "compare.json").write_text(json.dumps(record, indent=1))
    with open(args.out / "mismatches.jsonl", "w") as fh:
        for r in rows:
            if not r["gpu_match"]:
                fh.write(json.dumps(r) + "\n")
    bad = sum(not r["gpu_match"] for r in rows)
    print(f"{len(rows)} comparisons, {bad} mismatches: {args.out / 'compare.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
