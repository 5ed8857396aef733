"""``python -m builder.sources.shipped``: build (or time a sample of) the real config and print its summary.

    python -m builder.sources.shipped --sources examples,library --stride tests=8 --out real_rows.parquet

Writes one Parquet file with the real config's schema when ``--out`` is given (through a temporary file, moved
into place at the end), and always prints the counts by source and by reason skipped, and the time taken.
``warp-cuda-ir build --configs real`` builds the same rows into the dataset folder.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from builder.build_options import BuildOptions
from builder.configs import names
from builder.errors import ConfigError
from builder.grammar.sample import sample
from builder.shipped.packages import SOURCES as SOURCE_KEYS
from builder.shipped.packages import require
from builder.sources.shipped.rows import Sample, Summary, shipped_rows


def _stride(text: str) -> dict[str, int]:
    out = {}
    for part in filter(None, text.split(",")):
        source, _, k = part.partition("=")
        if not k.isdigit() or int(k) < 1:
            raise ConfigError(f"--stride wants SOURCE=K with K a positive integer, got {part!r}")
        out[source] = int(k)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m builder.sources.shipped", description=__doc__.splitlines()[0])
    p.add_argument("--config", default="real", choices=names(shipped=True), help="the shipped config (default real)")
    p.add_argument("--sources", default=",".join(SOURCE_KEYS), help="packages or PACKAGE/PART sources (default: all)")
    p.add_argument("--limit", type=int, default=None, help="at most this many kernels")
    p.add_argument("--stride", default="", help="SOURCE=K,...: keep every K-th module of SOURCE (a timing sample)")
    p.add_argument("--verify", default="compile", help="none | compile (default)")
    p.add_argument("--out", default=None, help="Parquet file to write")
    p.add_argument(
        "--decontam", type=int, default=0, help="compare with this many generated programs per split (seed 0)"
    )
    args = p.parse_args(argv)
    try:
        if args.verify not in ("none", "compile"):
            raise ConfigError(f"--verify is none or compile (shipped kernels are never executed), got {args.verify!r}")
        opts = BuildOptions(args.config, real_sources=args.sources, verify=args.verify)
        subset = Sample(max_kernels=args.limit, stride=_stride(args.stride) or None)
        require(opts.shipped_sources)  # what a build's plan checks: every package at its pinned version
    except ConfigError as exc:
        print(f"python -m builder.sources.shipped: error: {exc}", file=sys.stderr)
        return 2
    from builder.warp_backend import codegen

    codegen.init_quietly()  # no driver warning on a machine without a GPU, as in the build
    summary, start = Summary(), time.perf_counter()
    try:
        got = list(shipped_rows(opts, subset, summary))
        if args.out:
            _write(got, Path(args.out), args.config)
    except KeyboardInterrupt:
        print("python -m builder.sources.shipped: interrupted; nothing was written", file=sys.stderr)
        return 130
    print(f"rows: {len(got)} in {time.perf_counter() - start:.1f} s")
    for line in summary.lines():
        print(line)
    if args.decontam > 0:
        _decontam(got, args.decontam)
    return 0


def _decontam(got: list[dict], n: int) -> None:
    from builder.grammar.policy import CATEGORIES
    from builder.schema import SPLITS
    from builder.shipped.overlap import decontaminate

    synthetic = [(f"{s}/0/{i}", sample(0, s, i, CATEGORIES).program.source) for s in SPLITS for i in range(n)]
    r = decontaminate([(row["id"], row["python_source"]) for row in got], synthetic)
    print(
        f"decontamination: {r.real} real sources vs {r.synthetic} generated programs: "
        f"{len(r.exact_source)} exact, {len(r.exact_normalized)} equal normalized, {len(r.near)} near (Jaccard >= 0.8)"
    )
    for pair in (r.exact_source + r.exact_normalized + r.near)[:10]:
        print("  ", pair)


def _write(got: list[dict], out: Path, config: str) -> None:
    import datasets

    from builder.schema import features

    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    try:
        columns = {k: [r[k] for r in got] for k in features(config)}  # also right when no row was kept
        datasets.Dataset.from_dict(columns, features=features(config)).to_parquet(str(tmp))
        os.replace(tmp, out)
    finally:
        tmp.unlink(missing_ok=True)


if __name__ == "__main__":
    sys.exit(main())
