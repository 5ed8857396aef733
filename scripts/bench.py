"""Throughput of the builder against the bare-Warp floor, and its memory, engines and versions, in one run.

    python scripts/bench.py --rows 120

What each table measures: ``builder.bench`` (the harness); the dated figures: docs/results/benchmarks.md.
"""

from builder.bench import main

if __name__ == "__main__":
    main()
