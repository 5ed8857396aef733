"""``warp-cuda-ir``: build, validate and publish the dataset.

Every subcommand lives in ``builder/commands/``. Bad input exits 2 with one line on stderr, a failed run exits 1,
an interrupt exits 128 + the signal number; never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import signal
import sys

from builder.dataset import interrupts
from builder.errors import ConfigError

# Subcommand modules, in the order ``--help`` lists them.
COMMANDS = ("build", "validate", "evaluate", "train", "predict", "push")


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (``PROG: error: ...``) and exit 2; the scripts use it too."""

    def error(self, message: str) -> None:  # one line, exit 2 (argparse prints usage too)
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(2)


def parser() -> argparse.ArgumentParser:
    p = OneLineParser(prog="warp-cuda-ir", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True, parser_class=OneLineParser)
    for name in COMMANDS:
        module = importlib.import_module(f"builder.commands.{name}")
        cmd = sub.add_parser(
            module.NAME, help=module.HELP, description=module.__doc__.splitlines()[0].replace("``", "`")
        )
        module.add_arguments(cmd)
        cmd.set_defaults(run=module.run)
    return p


def main(argv: list[str] | None = None) -> int:
    # first, before the heavy imports: a signal that lands while they run unwinds like any other
    with interrupts.catch() as caught:
        try:
            args = parser().parse_args(argv)
            return args.run(args)
        except (ConfigError, FileExistsError) as exc:
            print(f"warp-cuda-ir: error: {exc}", file=sys.stderr)
            return 2
        except KeyboardInterrupt as exc:
            signum = caught.signum or signal.SIGINT
            detail = getattr(exc, "detail", "nothing was written")
            print(f"warp-cuda-ir: interrupted ({signal.Signals(signum).name}); {detail}", file=sys.stderr, flush=True)
            return 128 + signum
        except Exception as exc:  # noqa: BLE001 - one line, not a traceback
            print(f"warp-cuda-ir: error: {exc}".splitlines()[0], file=sys.stderr)
            return 1


if __name__ == "__main__":
    sys.exit(main())
