"""How much the generated kernels look like real Warp code: generated programs next to Warp's own kernels.

    python scripts/realism.py --rows 300 --seed 23 [--json OUT]
    python scripts/realism.py --real-only
    python scripts/realism.py --source-glob 'some/dir/*.py'
    python scripts/realism.py --judge --rows 2000 --seed 23 [--part whole|signature|body] [--json OUT]
    python scripts/realism.py --judge --rows 1000 --seeds 7,23,1,2,3,4 [--json OUT]

``--judge``: the classifier test (``builder.analysis.judge``) between the generated kernels and every real project
installed (the packages of the ``real`` config), and between every pair of real projects; then the style shares
of each corpus and the builtins real projects call that the generated kernels never do, weighted by use.
``--part signature`` or ``--part body`` runs the classifier test on that part of every kernel only (decorators and
signature, or what follows), which says where two corpora differ.

Columns: the generated corpus (train rows 0..N-1 of the seed, or the files matching ``--source-glob``, each one
program), then the installed Warp package's examples, library (``_src``) and tests (one program per kernel).
Definitions and measurements: docs/results/realism.md. Prints a Markdown table; ``--json`` also writes the columns
as JSON.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

from builder.analysis.corpora import files_corpus, generated_corpus, generated_kernels
from builder.analysis.judge import PARTS
from builder.analysis.realism_table import markdown, metrics, real_corpora, real_weights
from builder.cli import OneLineParser


def _args(argv):
    p = OneLineParser(prog="realism", description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=int, default=300, help="generated train rows to measure (default 300)")
    p.add_argument("--seed", type=int, default=23)
    p.add_argument("--json", type=Path, help="also write the columns as JSON to this file")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--real-only", action="store_true", help="measure only the Warp package's own code")
    which.add_argument("--source-glob", help="measure these Python files instead of generated programs")
    which.add_argument("--judge", action="store_true", help="the classifier test against every real project")
    p.add_argument("--part", choices=PARTS, default="whole", help="what of each kernel the judge reads")
    p.add_argument(
        "--seeds",
        help="with --judge: comma-separated seeds, each judged as --seed is; prints each project's margin per seed, "
        "its mean and how many seeds pass (one seed's margin is within the draw's noise)",
    )
    args = p.parse_args(argv)
    if args.part != "whole" and not args.judge:
        p.error("--part goes with --judge")
    if args.seeds is not None:
        if not args.judge:
            p.error("--seeds goes with --judge")
        try:
            args.seeds = [int(s) for s in args.seeds.split(",")]
        except ValueError:
            p.error(f"--seeds must be comma-separated integers, got {args.seeds!r}")
        if len(set(args.seeds)) != len(args.seeds) or any(s < 0 for s in args.seeds):
            p.error(f"--seeds must be distinct non-negative integers, got {args.seeds!r}")
    if args.rows < 1:
        p.error(f"--rows must be at least 1, got {args.rows!r}")
    if args.json is not None and args.json.parent.exists() and not args.json.parent.is_dir():
        p.error(f"--json folder is not a folder: {str(args.json.parent)!r}")
    return args


def _write_json(path: Path, columns: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(columns, f, indent=2, sort_keys=True)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def _judge_seeds(args) -> dict:
    from builder.analysis import judge
    from builder.analysis.projects import real_projects

    real = real_projects()
    by_seed = {}
    for seed in args.seeds:
        generated = generated_kernels(seed, args.rows)
        by_seed[seed] = judge.judge(generated, real, seed=seed, part=args.part)
        print(f"seed {seed}: judged", file=sys.stderr, flush=True)
    print(judge.seeds_table(by_seed))
    return {
        "part": args.part,
        "seeds": {
            str(seed): [
                {"project": v.project, "kernels": v.kernels, "generated": v.generated, "others": v.others}
                for v in verdicts
            ]
            for seed, verdicts in by_seed.items()
        },
    }


def _judge(args) -> dict:
    from builder.analysis import judge
    from builder.analysis.projects import real_projects

    if args.seeds is not None:
        return _judge_seeds(args)
    real = real_projects()
    generated = generated_kernels(args.seed, args.rows)
    verdicts = judge.judge(generated, real, seed=args.seed, part=args.part)
    label = f"generated seed {args.seed}" + ("" if args.part == "whole" else f", {args.part} only")
    print(judge.table(verdicts, label))
    print()
    print("pairs of real projects (AUC):")
    for v in verdicts:
        print(f"  {v.project}: " + ", ".join(f"{q} {a:.3f}" for q, a in v.others.items()))
    corpora = {label: generated, **real}
    shares = {name: judge.style(texts) for name, texts in corpora.items()}
    print()
    print(markdown(shares))
    missing, weights = judge.missing_builtins(generated, real)
    total = sum(weights.values())
    print()
    print(
        f"builtins real projects call that the generated kernels never do: {len(missing)} of {len(weights)}, "
        f"{100 * sum(n for n, _ in missing) / max(1, total):.1f}% of real call sites; the most used:"
    )
    print("  " + ", ".join(f"{b} {n}" for n, b in missing[:40]))
    return {
        "part": args.part,
        "verdicts": [
            {"project": v.project, "kernels": v.kernels, "generated": v.generated, "others": v.others} for v in verdicts
        ],
        "style": shares,
        "missing_builtins": {b: n for n, b in missing},
    }


def main(argv=None) -> int:
    args = _args(argv)
    start = time.perf_counter()
    if args.judge:
        out = _judge(args)
        if args.json is not None:
            _write_json(args.json, out)
        print(f"\n({time.perf_counter() - start:.1f} s)", file=sys.stderr)
        return 0
    real = real_corpora()
    exlib, every = real_weights(real)
    columns = {}
    if args.source_glob:
        columns["files"] = metrics(files_corpus(args.source_glob), exlib, every)
    elif not args.real_only:
        corpus, shapes = generated_corpus(args.rows, args.seed)
        columns[f"generated (seed {args.seed}, {args.rows} rows)"] = metrics(corpus, exlib, every, shapes)
    for name, corpus in real.items():
        columns[name] = metrics(corpus, exlib, every)
    print(markdown(columns))
    if args.json is not None:
        _write_json(args.json, columns)
    print(f"\n({time.perf_counter() - start:.1f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
    except (FileNotFoundError, ValueError) as e:
        print(f"realism: {e}", file=sys.stderr)
        sys.exit(1)
