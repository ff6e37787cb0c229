"""Which LoCoMo questions name a date, as `local_agent.reading.dates.read_dates` reads them, and what one
call costs. Prints every question with its spans (--show), the counts per category and the
per-call latency after warm-up, for questions with and without a date.

    python scripts/date_spans.py /work/shared/data/locomo-dev.json --show
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter
from datetime import datetime
from pathlib import Path

from local_agent.reading.dates import read_dates


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", type=Path, help="a LoCoMo JSON file")
    parser.add_argument("--today", default="2024-01-01", help="the today dates are read against (YYYY-MM-DD)")
    parser.add_argument("--show", action="store_true", help="print each question that gets a span")
    args = parser.parse_args()
    today = datetime.fromisoformat(args.today)
    questions = [(int(qa["category"]), str(qa["question"]))
                 for item in json.loads(args.path.read_text(encoding="utf-8")) for qa in item.get("qa", [])]
    read_dates("warm up on 2 May 2023", today)  # imports dateparser and loads its English data
    total, dated = Counter[int](), Counter[int]()
    timings: dict[bool, list[float]] = {True: [], False: []}
    for category, question in questions:
        start = time.perf_counter()
        spans = read_dates(question, today)
        timings[bool(spans)].append(time.perf_counter() - start)
        total[category] += 1
        dated[category] += bool(spans)
        if spans and args.show:
            print(f"[{category}] {question}  ->  " + "; ".join(
                f"{span.text!r} {span.kind} {span.start:%Y-%m-%d %H:%M}..{span.end:%Y-%m-%d %H:%M}" for span in spans))
    for category in sorted(total):
        print(f"category {category}: {dated[category]}/{total[category]} questions with a date", file=sys.stderr)
    print(f"all: {sum(dated.values())}/{sum(total.values())}", file=sys.stderr)
    for has_date, values in timings.items():
        if values:
            print(f"{'with' if has_date else 'without'} a date: median {statistics.median(values) * 1e6:.0f} µs, "
                  f"max {max(values) * 1e6:.0f} µs over {len(values)} calls", file=sys.stderr)


if __name__ == "__main__":
    main()
