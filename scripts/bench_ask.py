#!/usr/bin/env python
"""`local-agent ask --max-tokens 8 "hi"` wall time to exit on a store of N memories built with
`memory import` (issue 14's target): with memory and with --no-memory, in-process (--no-server),
median of --reps runs after one warm-up each. The store is built in a temporary data dir from
the texts of a JSON Lines file (`text` per line, e.g. ../shared/data/distill-dev.jsonl).

    python scripts/bench_ask.py ../shared/data/distill-dev.jsonl [--memories 1000] [--reps 5] [--message TEXT]

"hi" is small talk, which recalls nothing; `--message "what books do I like?"` times a message
that recalls memories and so evaluates them.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CLI = [sys.executable, "-m", "local_agent"]
ROOT = Path(__file__).resolve().parent.parent


def export_file(source: Path, count: int, out: Path) -> Path:
    """A `memory export` file of `count` facts: the source's texts, numbered to keep them apart
    (`memory import` embeds them itself; the export's embedding tag is not read)."""
    texts = [json.loads(line)["text"] for line in source.read_text(encoding="utf-8").splitlines() if line.strip()]
    now = time.time()
    records = [{"id": f"m{i:07d}", "kind": "fact", "text": f"{texts[i % len(texts)]} ({i})", "created": now,
                "updated": now, "provenance": {"source_text": texts[i % len(texts)], "via": "memory add"},
                "decision": {"route": "user"}, "key": None, "superseded_by": None, "supersedes": None}
               for i in range(count)]
    out.write_text(json.dumps({"format": "local-agent memory export", "version": 1, "exported_at": now,
                               "embedding": "", "records": records}), encoding="utf-8")
    return out


def timed(args: list[str], reps: int) -> list[float]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    subprocess.run(CLI + args, check=True, capture_output=True, env=env)  # warm-up
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        subprocess.run(CLI + args, check=True, capture_output=True, env=env)
        times.append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("texts", type=Path)
    parser.add_argument("--memories", type=int, default=1000)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--message", default="hi")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        data_dir = Path(folder) / "data"
        source = export_file(args.texts, args.memories, Path(folder) / "export.json")
        subprocess.run([*CLI, "memory", "import", str(source), "--data-dir", str(data_dir)], check=True,
                       capture_output=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
        ask = ["ask", "--no-server", "--max-tokens", "8", "--data-dir", str(data_dir)]
        result = {"memories": args.memories, "reps": args.reps, "message": args.message,
                  "loadavg_before": os.getloadavg()[0]}
        for name, extra in (("with_memory", []), ("no_memory", ["--no-memory"])):
            times = timed(ask + extra + ["--", args.message], args.reps)
            result[name] = {"median_s": round(statistics.median(times), 3), "min_s": round(min(times), 3),
                            "max_s": round(max(times), 3)}
        result["loadavg_after"] = os.getloadavg()[0]
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
