"""Rows against Warp's public pipeline: how many of N rows per config are exactly what Warp writes.

    python scripts/fidelity.py --seed 7 --rows 60

Draws rows 0..N-1 of the train split of cuda-forward, cuda-backward and cpu (no compile evidence needed: the
text is the point), puts each program through ``wp.load_module`` / ``wp.compile_aot_module`` in a fresh process
(``builder.warp_backend.public``) and prints, per config, how many rows' ``ir`` and ``module_source`` are
identical to Warp's, and the first differences.
"""

from __future__ import annotations

import argparse
import sys
import time

from builder.build_options import BuildOptions
from builder.checks.fidelity import Fidelity
from builder.sources import source_of
from builder.sources.drawn.records import generated_rows
from builder.warp_backend import public

CONFIGS = ("cuda-forward", "cuda-backward", "cpu")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--rows", type=int, default=60, help="programs drawn (train rows 0..N-1)")
    p.add_argument("--workers", type=int, default=None, help="public-pipeline processes at once (default: CPUs)")
    args = p.parse_args(argv)
    found = {}
    for config in CONFIGS:
        opts = BuildOptions(
            config=config, seed=args.seed, num_train=args.rows, num_validation=0, num_test=0, verify="none"
        )
        found[config] = list(generated_rows(opts, "train", 0, args.rows))
    fidelity = Fidelity(source_of)
    keys = sorted({fidelity.reference_key(r) for rs in found.values() for r in rs})
    start = time.perf_counter()
    references = dict(zip(keys, public.public_units(keys, workers=args.workers)))
    print(f"{len(keys)} programs through Warp's public pipeline in {time.perf_counter() - start:.0f} s")
    failed = False
    for config, rs in found.items():
        diffs = [(r["id"], fidelity.differences(r, references)) for r in rs]
        ir_ok = sum("ir" not in d.split(",") and not d.startswith("Warp") for _, d in diffs)
        unit_ok = sum("module_source" not in d.split(",") and not d.startswith("Warp") for _, d in diffs)
        print(f"{config}: ir identical {ir_ok}/{len(rs)}, module_source identical {unit_ok}/{len(rs)}")
        for row_id, d in [x for x in diffs if x[1]][:3]:
            print(f"  {row_id}: {d}")
        failed |= any(d for _, d in diffs)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
