"""``warp-cuda-ir build``: write the dataset folder users load with ``datasets.load_dataset``."""

from __future__ import annotations

import argparse
import re
import sys

from builder import configs
from builder.build_options import BuildOptions, BuildRequest, cli_default, user_fields
from builder.configs import CONFIGS
from builder.errors import ConfigError
from builder.schema import SPLITS
from builder.sources import source_of

NAME = "build"
HELP = "build the dataset folder (Parquet shards + README card + manifest.json)"
DEFAULT_CONFIGS = ",".join(configs.DEFAULT_CONFIGS)
ENGINES = ("local", "ray")
EPILOG = (
    "Parallelism is bounded by the shard count: each shard (rows start..stop of a split, one Parquet file per "
    "config) is one unit of work, so a build runs at most as many processes or Ray tasks as it has shards. "
    "SIGINT, SIGTERM and SIGHUP stop a build cleanly (exit 128 + signal), keeping its finished shards: run the "
    "same command again to continue."
)


def add_arguments(b: argparse.ArgumentParser) -> None:
    b.epilog = EPILOG
    b.add_argument(
        "--configs",
        default=DEFAULT_CONFIGS,
        help=f"comma-separated, from {', '.join(CONFIGS)} (default {DEFAULT_CONFIGS}); real: the kernels written "
        "in warp-lang and other packages, split train / validation / test by package and module",
    )
    for f in user_fields():  # one source: the BuildOptions fields, their defaults and help
        default = cli_default(f)
        b.add_argument(
            "--" + f.name.replace("_", "-"),
            type=int if isinstance(default, int) else str,
            default=default,
            help=f"{f.metadata['help']} (default {default})",
        )
    b.add_argument("--engine", choices=ENGINES, default="local", help="local (default) or ray")
    b.add_argument("--num-proc", type=int, default=1, help="local engine: worker processes (default 1)")
    b.add_argument(
        "--address", default=None, help="ray engine: the cluster to join (auto, HOST:PORT); default: a local Ray"
    )
    b.add_argument("--out", default="warp_cuda_ir", help="output folder or fsspec URL (file://, s3://, gs://)")
    b.add_argument("--overwrite", action="store_true", help="replace the output if it exists")
    b.add_argument(
        "--resume",
        action="store_true",
        help="repair a finished folder of the same options in place (only missing or changed shards are built "
        "again); on an fsspec URL, keep a stopped build's shards and continue them. A local build always keeps the "
        "finished shards of a stopped run, and the same command continues it",
    )


def request_from(args: argparse.Namespace) -> BuildRequest:
    if not [c for c in args.configs.split(",") if c]:
        raise ConfigError("--configs is empty")
    return BuildRequest.of(args.configs, **{f.name: getattr(args, f.name) for f in user_fields()})


def run(args: argparse.Namespace) -> int:
    # every argument is checked before Warp is imported, so a usage error is one line without Warp's own output
    if args.num_proc < 1:
        raise ConfigError(f"--num-proc must be a positive integer, got {args.num_proc}")
    if args.address and args.engine != "ray":
        raise ConfigError("--address joins a Ray cluster: it needs --engine ray")
    request = request_from(args)
    from builder.dataset.destination import open_destination

    open_destination(args.out, request, args.overwrite, args.resume)  # raises for an output it may not use
    warn_shards_capped(request)
    if args.engine == "local":  # a Ray cluster's workers may have what this machine lacks (a GPU, compilers)
        _require(request)
    from builder.dataset import chatter
    from builder.dataset.folder import build_folder
    from dataset_card.render import render

    try:
        log = chatter.new_log()
    except OSError as exc:  # no writable log folder: the build still runs, Warp's output on the terminal
        print(f"warp-cuda-ir: warning: no build log ({exc}); Warp's own output stays on the terminal", file=sys.stderr)
        log = None
    try:
        stats = build_folder(
            request,
            args.out,
            args.num_proc,
            args.overwrite,
            engine=args.engine,
            address=args.address,
            resume=args.resume,
            card=render,
            log=log,
        )
    except (KeyboardInterrupt, ConfigError, FileExistsError):
        raise
    except Exception as exc:  # a worker's error arrives wrapped; report its root, which names the row
        raise RuntimeError(root_cause(exc)) from exc
    finally:
        if log is not None:
            chatter.finish(log)
    for opts in request:
        sizes = ", ".join(_count(opts, s, n) for s, n in stats[opts.config].items())
        note = source_of(opts.config).note(opts)
        print(f"{opts.config}: {sizes}" + (f" ({note})" if note else ""))
    print(f"wrote {args.out} (load with datasets.load_dataset({args.out!r}, {request.configs[0]!r}))")
    return 0


def warn_shards_capped(request: BuildRequest) -> None:
    """A split has at most one shard per row: say so when --num-shards asks for more than the largest split."""
    generated = [o for o in request if configs.spec(o.config).drawn]  # sized by --num-*; the others by their sources
    if not generated or not generated[0].num_shards:
        return
    largest = max(generated[0].size(s) for s in SPLITS)
    if generated[0].num_shards > largest:
        print(
            f"warp-cuda-ir: warning: --num-shards {generated[0].num_shards} but the largest split has {largest} rows: "
            f"a split has at most one shard per row, so at most {largest} shards each",
            file=sys.stderr,
            flush=True,
        )


def _require(request: BuildRequest) -> None:
    """What each config needs from this machine (a GPU, the compilers), checked by its row source."""
    for opts in request:
        source_of(opts.config).require(opts)


def _count(opts: BuildOptions, split: str, n: int) -> str:
    return source_of(opts.config).size(opts, split, n)


_EXC_LINE = re.compile(r"^(?:[A-Za-z_][\w]*\.)*([A-Za-z_]\w*(?:Error|Exception|Bug|Interrupt|Exit)\b.*)$", re.M)


def root_cause(exc: BaseException) -> str:
    """One line naming the error a shard raised (a pool re-raises the worker's own exception)."""
    if type(exc).__name__ == "RemoteTraceback":
        m = _EXC_LINE.search(str(exc))
        if m:
            return m.group(1).strip()
    return f"{type(exc).__name__}: {exc}".splitlines()[0]
