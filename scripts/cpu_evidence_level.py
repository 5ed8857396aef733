"""The CPU evidence at the level the build compiles it (``compilers.CPU_OPTIMIZATION_LEVEL``) against Warp's default.

Runs ``verify.execute_cpu`` (one CPU build with adjoints and a seeded forward and backward run per program, in
batches as a build makes them) on the first ``--programs`` train programs of ``--seed``, once at the build's level
and once at Warp's own default (``-O2``), each in a fresh process, and prints the CPU seconds of each and how many
programs' evidence differs (validity flags, output and gradient checksums).

    python scripts/cpu_evidence_level.py --programs 1024
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

CHILD = "--child"


def evidence(level: str, seed: int, programs: int) -> None:
    """In this process: the evidence of the programs at ``level`` ("build" or "default"), as JSON on stdout."""
    from builder.grammar.policy import CATEGORIES
    from builder.grammar.sample import sample
    from builder.warp_backend import codegen, compilers, verify

    if level == "default":
        compilers.CPU_OPTIMIZATION_LEVEL = None  # the module option unset: Warp's own default
    codegen.init_quietly()
    items = [
        verify.Item(f"index={i}", sample(seed, "train", i, CATEGORIES).program, "", verify.input_seed(seed, "train", i))
        for i in range(programs)
    ]
    start = time.process_time()
    verify.execute_cpu(items, 64)
    seconds = time.process_time() - start
    ev = [(it.evidence.valid, it.evidence.output_checksum, it.evidence.grad_checksum) for it in items]
    print(json.dumps({"seconds": seconds, "evidence": ev}))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--programs", type=int, default=256)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(CHILD, choices=("build", "default"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        evidence(args.child, args.seed, args.programs)
        return
    runs = {}
    for level in ("build", "default"):
        cmd = [sys.executable, __file__, CHILD, level, "--programs", str(args.programs), "--seed", str(args.seed)]
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        runs[level] = json.loads(out.strip().splitlines()[-1])
    from builder.warp_backend.compilers import CPU_OPTIMIZATION_LEVEL

    differ = sum(a != b for a, b in zip(runs["build"]["evidence"], runs["default"]["evidence"]))
    valid = sum(v for v, *_ in runs["build"]["evidence"])
    b, d = runs["build"]["seconds"], runs["default"]["seconds"]
    print(f"{args.programs} programs (seed {args.seed}), {valid} with valid evidence")
    print(f"CPU build and run at -O{CPU_OPTIMIZATION_LEVEL}: {b:.1f} CPU s; at Warp's default: {d:.1f} CPU s")
    print(f"default / build: {d / b:.2f}")
    print(f"programs whose evidence differs: {differ}")


if __name__ == "__main__":
    main()
