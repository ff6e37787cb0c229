#!/usr/bin/env python
"""The reply plan (turn/plans.py) of every user message in the project's people and reply sets,
with no memories and no tools: a change to the plan steps shows what it moves.

    python scripts/reply_plans.py --out after.json --compare before.json

`--compare` lists each message whose plan kind differs from a file this script wrote before
(on another checkout); it exits 0 either way.
"""

import argparse
import datetime as dt
import json
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's package first

from local_agent.reading import read  # noqa: E402
from local_agent.turn.plans import plan_reply  # noqa: E402

NOW = dt.datetime(2026, 3, 11, 12)


def user_messages(row: dict) -> Iterator[str]:
    """The user's messages of one set row: a people set's days and questions, a conversation's
    turns, a reply or distillation set's message, text or question."""
    for day in row.get("days", []):
        yield from day.get("messages", [])
    yield from (question["ask"] for question in row.get("questions", []))
    yield from (turn["user"] for turn in row.get("turns", []) if isinstance(turn, dict) and "user" in turn)
    yield from (row[key] for key in ("message", "text", "question") if isinstance(row.get(key), str))


def plans() -> dict[str, str]:
    """Each user message of the sets, with its plan kind."""
    sets = sorted(ROOT.glob("scripts/evals/*/live-people-*.jsonl")) + sorted(ROOT.glob("scripts/evals/sets/*.jsonl"))
    return {message: plan_reply(read(message, NOW), []).kind
            for path in sets for line in path.read_text(encoding="utf-8").splitlines() if line.strip()
            for message in user_messages(json.loads(line))}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="write {message: plan kind} here")
    parser.add_argument("--compare", type=Path, default=None, help="a file this script wrote before")
    args = parser.parse_args()
    found = plans()
    args.out.write_text(json.dumps(found, indent=1, ensure_ascii=False), encoding="utf-8")
    print(f"{len(found)} messages")
    if args.compare is not None:
        before = json.loads(args.compare.read_text(encoding="utf-8"))
        changed = [(message, before[message], kind) for message, kind in found.items()
                   if message in before and before[message] != kind]
        for message, was, kind in changed:
            print(f"{was} -> {kind} | {message[:150]}")
        print(f"{len(changed)} changed")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
