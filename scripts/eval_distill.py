"""Evaluate the product's distiller on a labelled JSONL file (see scripts/evals/distill.py).

    python scripts/eval_distill.py PATH [--limit N] [--output FILE] [--model NAME]

A table and a progress bar go to stderr; stdout (and --output FILE) get one JSON document with
top-level precision, recall, tail_rate and valid_json_rate as fractions 0..1.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from evals.distill import evaluate_file

from local_agent.errors import LocalAgentError


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", type=Path, help="JSONL of {text, save, tail?, source?}")
    parser.add_argument("--limit", type=int, default=None, help="only the first N messages")
    parser.add_argument("--output", type=Path, default=None, help="also write the JSON report here")
    parser.add_argument("--model", default=None, help="model name (default: the configured model)")
    parser.add_argument("--rows", type=Path, default=None, help="write each message's outcome here (JSON lines)")
    args = parser.parse_args()
    try:
        report = evaluate_file(args.path, limit=args.limit, model=args.model, output=args.output, rows=args.rows)
    except LocalAgentError as exc:
        parser.exit(1, f"error: {exc}\n")
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
