#!/usr/bin/env python
"""Conversations per minute of `batch` run in order, in worker processes and on a local Ray
cluster, over the same scripted conversations (each its own user and session, memory on):

    flock -x /tmp/la-cpu.lock python scripts/ray_batch_speed.py --conversations 8 --turns 2 \
        --modes="--parallel 1,--workers 2,--ray,--ray --workers 1"

Each mode runs the real command line (`python -m local_agent batch ...`) in a fresh data dir,
timed from start to exit, model loading and (for --ray) starting the cluster included: what a
user waits for. Prints one line per mode and the load average taken before the runs.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TOPICS = ["my cat Tom", "my job as a nurse", "my trip to Lisbon", "my sister Eva", "learning the piano",
          "my garden", "running a marathon", "my new flat"]


def conversations(count: int, turns: int) -> list[dict[str, str]]:
    """`count` users with one session of `turns` lines each, interleaved as a log would be."""
    lines = []
    for turn in range(turns):
        for n in range(count):
            topic = TOPICS[n % len(TOPICS)]
            text = f"Let me tell you about {topic}." if turn == 0 else f"What did I tell you about {topic}?"
            lines.append({"user": f"u{n}", "session": f"c{n}", "input": text})
    return lines


def run(mode: list[str], source: Path, folder: Path, max_tokens: int) -> tuple[float, int]:
    env = {**os.environ, "LOCAL_AGENT_DATA_DIR": str(folder / "data"), "LOCAL_AGENT_CONFIG": str(folder / "none")}
    out = folder / "out.jsonl"
    command = [sys.executable, "-m", "local_agent", "batch", str(source), "-o", str(out), "-q",
               "--max-tokens", str(max_tokens), *mode]
    start = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(mode)} failed: {done.stderr.strip()[-500:]}")
    return seconds, len(out.read_text().splitlines())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--conversations", type=int, default=8)
    parser.add_argument("--turns", type=int, default=2)
    parser.add_argument("--max-tokens", type=int, default=48)
    parser.add_argument("--modes", default="--parallel 1,--workers 2,--ray,--ray --workers 1",
                        help="the batch flags of each run, comma-separated (write --modes=...)")
    args = parser.parse_args()
    print(f"loadavg before: {Path('/proc/loadavg').read_text().strip()}")
    print(f"{args.conversations} conversations x {args.turns} turns, --max-tokens {args.max_tokens}, memory on")
    for mode in args.modes.split(","):
        with tempfile.TemporaryDirectory(prefix="la-speed-") as scratch:
            source = Path(scratch) / "in.jsonl"
            source.write_text("".join(json.dumps(line) + "\n" for line in conversations(args.conversations,
                                                                                          args.turns)))
            seconds, records = run(mode.split(), source, Path(scratch), args.max_tokens)
        print(f"batch {mode:<14} {seconds:6.1f} s  {records} records  "
              f"{args.conversations / seconds * 60:5.1f} conversations/min")


if __name__ == "__main__":
    main()
