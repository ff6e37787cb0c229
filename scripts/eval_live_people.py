#!/usr/bin/env python
"""People talking over several days, asked about themselves days later: right, unsure and
confidently wrong (see scripts/evals/live_people.py).

    python scripts/eval_live_people.py --split dev --rows live.jsonl
    python scripts/eval_live_people.py --set scripts/evals/fresh/live-people-fresh.jsonl --split held-out
"""

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's package first

from evals.live_people import FRESH, SETS, load, run, summarize


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="dev", choices=("dev", "held-out", "all"))
    parser.add_argument("--set", type=Path, default=SETS / "live-people.jsonl",
                        help=f"the people (default: sets/live-people.jsonl; {FRESH.name} is all held out)")
    parser.add_argument("--rows", type=Path, default=None, help="write every answer here, one JSON line each")
    args = parser.parse_args()
    rows = run(load(args.split, args.set), progress=lambda line: print(line, file=sys.stderr, flush=True))
    if args.rows:
        args.rows.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    sys.stdout.write(json.dumps(summarize(rows), indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
