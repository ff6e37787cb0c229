#!/usr/bin/env python
"""Answers about the user's own past, checked for names and numbers without a source (see
scripts/evals/memory_answers.py); with the program's check (the product) and without it.

    python scripts/eval_memory_answers.py --split dev --rows memq.jsonl
"""

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's package first

from evals.memory_answers import load, run, summarize


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="dev", choices=("dev", "held-out", "all"))
    parser.add_argument("--rows", type=Path, default=None, help="write every answer here, one JSON line each")
    args = parser.parse_args()
    items = load(args.split)
    report, every = {}, []
    for name, program in (("product", True), ("model-only", False)):
        rows = run(items, program=program)
        every += [{"setup": name, **row} for row in rows]
        report[name] = summarize(rows)
    if args.rows:
        args.rows.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in every), encoding="utf-8")
    sys.stdout.write(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
