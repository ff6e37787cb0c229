#!/usr/bin/env python
"""Session digests judged against their sessions (see scripts/evals/digests.py).

    python scripts/eval_digests.py --split dev --rows digests.jsonl
"""

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's package first

from evals.digests import load, run, summarize
from evals.settings import dev_settings

from local_agent.backends import create_backend
from local_agent.memory.summary import Summarizer


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="dev", choices=("dev", "held-out", "all"))
    parser.add_argument("--rows", type=Path, default=None, help="write every session's bullets here")
    args = parser.parse_args()
    backend, _ = create_backend(dev_settings())
    with backend:
        rows = run(Summarizer(backend), load(args.split))
    if args.rows:
        args.rows.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    sys.stdout.write(json.dumps(summarize(rows), indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
