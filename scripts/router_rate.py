"""The tool router's tool-call rate on plain chat: LoCoMo dialogue turns, every tool enabled.

    python scripts/router_rate.py LOCOMO_JSON [--examples N]

Prints one JSON document: messages, routed, rate (0..1), counts by route and tool, and the
first routed messages, to read what the rules catch.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from evals.tool_router import locomo_turns, tool_call_rate

from local_agent.errors import LocalAgentError


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", type=Path, help="a LoCoMo JSON file (e.g. the dev conversations)")
    parser.add_argument("--examples", type=int, default=20, help="routed messages to show")
    args = parser.parse_args()
    try:
        report = tool_call_rate(locomo_turns(args.path), examples=args.examples)
    except LocalAgentError as exc:
        parser.exit(1, f"error: {exc}\n")
    print(json.dumps(report, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
