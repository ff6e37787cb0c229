#!/usr/bin/env python
"""Everyday replies, introductions and corrections judged by checkable properties (see
scripts/evals/replies.py), under one or more setups.

    python scripts/eval_replies.py --split dev --setups product,model-only --rows rows.jsonl

Prints one JSON report: per setup, per set and split, the share of replies passing every
property, each property's share and the share the program built.
"""

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's package first

from evals.replies import load, print_report, run, say, summarize, write_rows
from evals.reply_setups import SETUPS


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="dev", choices=("dev", "held-out", "all"))
    parser.add_argument("--setups", default="product", help="comma-separated, from: " + ", ".join(SETUPS))
    parser.add_argument("--sets", default="everyday,introductions,corrections")
    parser.add_argument("--rows", type=Path, default=None, help="write every reply here, one JSON line each")
    parser.add_argument("--output", type=Path, default=None)
    args = parser.parse_args()
    unknown = [name for name in args.setups.split(",") if name not in SETUPS]
    if unknown:
        parser.error(f"unknown setup {unknown[0]!r}")
    items = [item for item in load(args.split) if item.set in args.sets.split(",")]
    report, every_row = {}, []
    for name in args.setups.split(","):
        rows = run(SETUPS[name], items, progress=say)
        every_row += [{"setup": name, **row} for row in rows]
        report[name] = summarize(rows)
        say(f"{name}: " + ", ".join(f"{group} {values['passed']}" for group, values in report[name].items()))
    if args.rows:
        write_rows(every_row, args.rows)
    print_report(report, args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
