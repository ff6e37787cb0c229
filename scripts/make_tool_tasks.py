"""Generate the tool evaluation's task set into a folder (not part of the repository).

    python scripts/make_tool_tasks.py OUT_DIR [--seed N]

Writes OUT_DIR/tasks.jsonl (one task a line: id, category, message, answer, accept, tools,
today, and memories or gold_sql where they apply), OUT_DIR/notes/ (the notes folder the notes
questions are about), OUT_DIR/sample.db (users and user_activity) and OUT_DIR/manifest.json.
The same seed gives the same files.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from evals.tool_tasks.build import build_task_set


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="an empty or missing folder")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    try:
        manifest = build_task_set(args.out, args.seed)
    except FileExistsError as exc:
        parser.exit(1, f"error: {exc}\n")
    print(json.dumps(manifest, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
