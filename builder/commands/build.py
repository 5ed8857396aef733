"""``warp-cuda-ir build``: write the dataset folder users load with ``datasets.load_dataset``."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from builder.config import DEFAULT_SIZES, BuildOptions
from builder.errors import ConfigError, GPURequired
from builder.grammar.policy import CATEGORIES

NAME = "build"
HELP = "build the dataset folder (Parquet shards + README card)"
DEFAULT_CONFIGS = "cuda-forward,cuda-backward,cpu"


def add_arguments(b: argparse.ArgumentParser) -> None:
    b.add_argument("--configs", default=DEFAULT_CONFIGS, help=f"comma-separated (default {DEFAULT_CONFIGS})")
    b.add_argument("--seed", type=int, default=0)
    b.add_argument("--num-train", type=int, default=DEFAULT_SIZES["num_train"])
    b.add_argument("--num-validation", type=int, default=DEFAULT_SIZES["num_validation"])
    b.add_argument("--num-test", type=int, default=DEFAULT_SIZES["num_test"])
    b.add_argument("--categories", default=",".join(CATEGORIES), help="comma-separated subset")
    b.add_argument("--num-shards", type=int, default=8, help="Parquet shards per split")
    b.add_argument("--verify", default="execute", help="none | compile | execute (default)")
    # skip: a row that fails its evidence checks (a few per thousand have a constant output the grammar could not
    # rule out) is left out and counted on stderr, so a long build is not lost; error: stop at the first one
    b.add_argument("--on-invalid", default="skip", help="skip (default) | error")
    b.add_argument("--num-proc", type=int, default=1)
    b.add_argument("--out", default="warp_cuda_ir")
    b.add_argument("--overwrite", action="store_true")


def run(args: argparse.Namespace) -> int:
    if args.num_proc < 1:
        raise ConfigError(f"--num-proc must be a positive integer, got {args.num_proc}")
    configs = [c for c in args.configs.split(",") if c]
    if not configs:
        raise ConfigError("--configs is empty")
    options = [
        BuildOptions(
            config=c,
            seed=args.seed,
            num_train=args.num_train,
            num_validation=args.num_validation,
            num_test=args.num_test,
            categories=args.categories,
            num_shards=args.num_shards,
            verify=args.verify,
            on_invalid=args.on_invalid,
        )
        for c in configs
    ]
    from builder.dataset.folder import build_folder
    from builder.warp_backend import codegen

    if "gpu-verified" in configs and not codegen.cuda_available():
        raise GPURequired()
    try:
        stats = build_folder(options, Path(args.out), args.num_proc, args.overwrite)
    except KeyboardInterrupt:
        raise
    except (ConfigError, FileExistsError):
        raise
    except Exception as exc:  # a worker's error arrives wrapped; report its root, which names the row
        raise RuntimeError(root_cause(exc)) from exc
    for opts in options:
        sizes = stats[opts.config]
        print(
            f"{opts.config}: "
            + ", ".join(
                f"{s}={n}" + (f" ({opts.size(s) - n} invalid rows skipped)" if n < opts.size(s) else "")
                for s, n in sizes.items()
            )
        )
    print(f"wrote {args.out}/ (load with datasets.load_dataset({args.out!r}, {configs[0]!r}))")
    return 0


_EXC_LINE = re.compile(r"^(?:[A-Za-z_][\w]*\.)*([A-Za-z_]\w*(?:Error|Exception|Bug|Interrupt|Exit)\b.*)$", re.M)


def root_cause(exc: BaseException) -> str:
    """One line naming the error a worker raised.

    datasets wraps a worker's error in DatasetGenerationError; with num_proc > 1 the original arrives
    only as text, a ``RemoteTraceback`` set as the cause, whose first exception line is the root.
    """
    import datasets

    while isinstance(exc, datasets.exceptions.DatasetGenerationError) and exc.__cause__ is not None:
        exc = exc.__cause__
    if type(exc).__name__ == "RemoteTraceback":
        m = _EXC_LINE.search(str(exc))
        if m:
            return m.group(1).strip()
    return f"{type(exc).__name__}: {exc}".splitlines()[0]
