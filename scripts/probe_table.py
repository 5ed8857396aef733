"""The transfer probe's verdict over many runs: what each training source teaches (``builder.train.probe.verdict``).

    python scripts/probe_table.py REPORT.json [REPORT.json ...] [--out probe_table.json]

Each REPORT is a ``scripts/transfer_probe.py --validation`` report; runs of one source (generator version,
share of written code) with different seeds are one line, each cell the mean ± standard deviation (range) over
the seeds, nats per byte of ir. The best share of written code is chosen on real's validation split, never on
test. It prints the Markdown table and writes OUT (JSON).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from builder.errors import ConfigError
from builder.train.probe import verdict, verdict_markdown


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("reports", nargs="+", help="transfer_probe.py reports (JSON)")
    p.add_argument("--out", default="probe_table.json", help="the summary (JSON)")
    args = p.parse_args(argv)
    try:
        reports = [json.loads(Path(f).read_text()) for f in args.reports]
        summary = verdict(reports)
    except (OSError, ValueError, KeyError, ConfigError) as exc:  # a missing or unreadable report, mixed protocols
        print(f"probe_table: error: {exc}".splitlines()[0], file=sys.stderr)
        return 2
    if Path(args.out).is_dir():
        print(f"probe_table: error: --out {args.out} is a folder: name the summary's file", file=sys.stderr)
        return 2
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(summary, indent=1) + "\n")
    print(verdict_markdown(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
