"""``warp-cuda-ir build``: write the dataset folder users load with ``datasets.load_dataset``.

Bad input exits with code 2 and one line on stderr; a generator bug exits 1.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import datasets

from builder.config import DEFAULT_SIZES, BuildOptions, ConfigError
from builder.dataset.folder import OutputExists, build_folder
from builder.grammar.policy import CATEGORIES

DEFAULT_CONFIGS = "cuda-forward,cuda-backward,cpu"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2 (argparse prints usage too)
        print(f"warp-cuda-ir: error: {message}", file=sys.stderr)
        raise SystemExit(2)


def parser() -> argparse.ArgumentParser:
    p = _Parser(prog="warp-cuda-ir", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    b = sub.add_parser("build", help="build the dataset folder (Parquet shards + README card)")
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
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
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
        if "gpu-verified" in configs:
            from builder.warp_backend import codegen

            if not codegen.cuda_available():
                raise ConfigError("config 'gpu-verified' requires a CUDA GPU, and none is visible to Warp")
        stats = build_folder(options, Path(args.out), args.num_proc, args.overwrite)
    except (ConfigError, OutputExists) as exc:
        print(f"warp-cuda-ir: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("warp-cuda-ir: interrupted; nothing was written", file=sys.stderr)
        return 130
    except Exception as exc:  # noqa: BLE001 - one line, not a traceback; the root cause names the row
        print(f"warp-cuda-ir: error: {root_cause(exc)}", file=sys.stderr)
        return 1
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
    while isinstance(exc, datasets.exceptions.DatasetGenerationError) and exc.__cause__ is not None:
        exc = exc.__cause__
    if type(exc).__name__ == "RemoteTraceback":
        m = _EXC_LINE.search(str(exc))
        if m:
            return m.group(1).strip()
    return f"{type(exc).__name__}: {exc}".splitlines()[0]


if __name__ == "__main__":
    sys.exit(main())
