"""Run the everyday tool set (scripts/evals/tool_everyday/, issue 42) through the agent on a model
(the default unless --model says otherwise), as `ask --tools --db DB --json --no-memory` runs it,
and print per category and split the share of right, unsure and confidently wrong answers.

    python scripts/eval_everyday.py [--split {dev,heldout,all}] [--categories arithmetic,dates,sql] [--out REPORT.json]
                                    [--folder scripts/evals/fresh/tool_everyday]
"""

from __future__ import annotations

import argparse
import functools
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from evals import everyday
from evals.tool_eval import run_each, write_report
from evals.tool_tasks.sql import build_database

from local_agent.app import build_runtime
from local_agent.config import Settings
from local_agent.errors import LocalAgentError


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=["dev", "heldout", "all"], default="all")
    parser.add_argument("--categories", default=",".join(everyday.CATEGORIES))
    parser.add_argument("--model", default=Settings.model, help="registry name or model file")
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--out", type=Path, help="also write the report, with every row's outcome, here")
    parser.add_argument("--folder", type=Path, default=everyday.FOLDER,
                        help="the set's folder (evals/fresh/tool_everyday is all held out)")
    parser.add_argument("--rejudge", type=Path, help="judge the answers of an earlier --out report again, run nothing")
    return parser.parse_args()


def rejudge(path: Path) -> dict[str, Any]:
    earlier = json.loads(path.read_text(encoding="utf-8"))
    outcomes = everyday.rejudged(earlier["outcomes"])
    report: dict[str, Any] = {"splits": earlier["splits"], "model": earlier.get("model"), "rejudged": str(path)}
    for category in everyday.CATEGORIES:
        if chosen := [o for o in outcomes if o.category == category]:
            report[category] = everyday.category_report(chosen)
    report["outcomes"] = everyday.outcome_rows(outcomes)
    return report


def evaluate(args: argparse.Namespace) -> dict[str, Any]:
    splits = everyday.SPLITS if args.split == "all" else (args.split,)
    categories = [name.strip() for name in args.categories.split(",") if name.strip()]
    unknown = set(categories) - set(everyday.CATEGORIES)
    if unknown:
        raise LocalAgentError(f"unknown categories: {', '.join(sorted(unknown))}")
    with tempfile.TemporaryDirectory(prefix="tool-everyday-") as temporary:
        folder = Path(temporary)
        build_database(folder / "sample.db", random.Random(0))
        settings = Settings(model=args.model, threads=args.threads, data_dir=folder / "data", tools=True,
                            db=folder / "sample.db")
        start = time.perf_counter()
        report: dict[str, Any] = {"splits": list(splits)}
        outcomes = []
        with build_runtime(settings, memory=False) as runtime:
            for category in categories:
                tasks = everyday.load(category, splits, args.folder)
                done = run_each(category, tasks, functools.partial(everyday.run_task, runtime.agent, category))
                report[category] = everyday.category_report(done)
                outcomes += done
            report["model"] = runtime.backend.model_name
    report["seconds"] = round(time.perf_counter() - start, 1)
    report["outcomes"] = everyday.outcome_rows(outcomes)
    return report


def main() -> int:
    args = _arguments()
    try:
        report = rejudge(args.rejudge) if args.rejudge else evaluate(args)
    except LocalAgentError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    write_report(report, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
