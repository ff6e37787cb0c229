#!/usr/bin/env python
"""Companion conversations judged turn by turn by checkable properties (see
scripts/evals/companion.py).

    python scripts/eval_companion.py --split dev --rows rows.jsonl

Prints one JSON report: per split, the share of turns passing every check, each check's share,
and the conversations passing whole.
"""

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's package first

from evals.companion import load, run, summarize
from evals.replies import print_report, say, write_rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="dev", choices=("dev", "held-out", "all"))
    parser.add_argument("--rows", type=Path, default=None, help="write every reply here, one JSON line each")
    parser.add_argument("--output", type=Path, default=None)
    args = parser.parse_args()
    rows = run(load(args.split), progress=say)
    if args.rows:
        write_rows(rows, args.rows)
    print_report(summarize(rows), args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
