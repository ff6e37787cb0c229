"""Evaluate the tools end to end on a model (the default unless --model says otherwise).

    python scripts/eval_tools.py --locomo LOCOMO_JSON [--limit N] [--seed N] [--out REPORT.json]
    python scripts/eval_tools.py --hand-written {dev,heldout,all} [--categories arithmetic,dates,sql,chat]

Generates the task set (as scripts/make_tool_tasks.py does) into a temporary folder, runs every
task through the agent with tools on (--db on its sample database, --notes on its notes folder,
memory on, incognito), and prints one JSON report: per category tool-choice accuracy,
schema-valid calls, answer accuracy, model steps and latency; and the share of plain chat
messages (LoCoMo dialogue turns, and with --chat-jsonl the `text` of each line of another
file) that the router sends to a tool. --limit takes the first N tasks of each category.

With --hand-written it runs the hand-written dev sets of scripts/evals/tool_dev/ instead (memory
off, as `ask --tools --db DB --json --no-memory`; the database is the generated sample.db):
accuracy per category and split, how each answer was reached, tool-turn latency, and for SQL
how many queries were valid, ran and were right.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from evals import tool_dev
from evals.tool_eval import chat_rate, load_tasks, outcome_rows, run_each, run_task, task_report, write_report
from evals.tool_router import locomo_turns
from evals.tool_tasks.build import build_task_set
from evals.tool_tasks.sql import build_database

from local_agent.app import build_runtime
from local_agent.config import Settings
from local_agent.errors import LocalAgentError


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--locomo", type=Path, help="LoCoMo JSON (e.g. the dev conversations)")
    parser.add_argument("--hand-written", choices=["dev", "heldout", "all"],
                        help="run the hand-written dev sets (this split) instead of the generated tasks")
    parser.add_argument("--categories", default=",".join(tool_dev.CATEGORIES),
                        help="with --hand-written: the categories to run, comma-separated")
    parser.add_argument("--chat-jsonl", type=Path, help="more plain chat: a JSONL file with a `text` per line")
    parser.add_argument("--limit", type=int, help="at most N tasks per category")
    parser.add_argument("--seed", type=int, default=0, help="the task set's seed")
    parser.add_argument("--model", default=Settings.model, help="registry name or model file")
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--out", type=Path, help="also write the report, with every task's outcome, here")
    args = parser.parse_args()
    if args.hand_written is None and args.locomo is None:
        parser.error("--locomo is needed unless --hand-written is given")
    return args


def _settings(args: argparse.Namespace, folder: Path) -> Settings:
    return Settings(model=args.model, threads=args.threads, data_dir=folder / "data", tools=True,
                    db=folder / "tasks" / "sample.db", notes=folder / "tasks" / "notes", incognito=True)


def _plain_chat(args: argparse.Namespace) -> dict[str, list[str]]:
    sets = {"locomo": locomo_turns(args.locomo)}
    if args.chat_jsonl:
        lines = args.chat_jsonl.read_text(encoding="utf-8").splitlines()
        sets[args.chat_jsonl.name] = [json.loads(line)["text"] for line in lines if line.strip()]
    return sets


def evaluate(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="tool-eval-") as temporary:
        folder = Path(temporary)
        manifest = build_task_set(folder / "tasks", args.seed)
        tasks = load_tasks(folder / "tasks", args.limit)
        start = time.perf_counter()
        with build_runtime(_settings(args, folder)) as runtime:
            agent = runtime.agent
            assert agent.tool_turn is not None
            outcomes = []
            for number, task in enumerate(tasks, 1):
                outcomes.append(run_task(runtime, task))
                print(f"\r{number}/{len(tasks)} {task['id']}", end="", file=sys.stderr, flush=True)
            print(file=sys.stderr)
            chat = {name: chat_rate(agent.tool_turn, messages) for name, messages in _plain_chat(args).items()}
            model = runtime.backend.model_name
    return {"model": model, "seed": args.seed, "limit_per_category": args.limit, "task_counts": manifest["counts"],
            "seconds": round(time.perf_counter() - start, 1), "categories": task_report(outcomes),
            "plain_chat_tool_rate": chat, "outcomes": outcome_rows(outcomes)}


def evaluate_hand_written(args: argparse.Namespace) -> dict[str, Any]:
    splits = tool_dev.SPLITS if args.hand_written == "all" else (args.hand_written,)
    categories = [name.strip() for name in args.categories.split(",") if name.strip()]
    with tempfile.TemporaryDirectory(prefix="tool-dev-") as temporary:
        folder = Path(temporary)
        (folder / "tasks").mkdir()
        build_database(folder / "tasks" / "sample.db", random.Random(0))
        settings = dataclasses.replace(_settings(args, folder), notes=None, incognito=False)
        start = time.perf_counter()
        report: dict[str, Any] = {"splits": list(splits)}
        outcomes = []
        with build_runtime(settings, memory=False) as runtime:
            for category in categories:
                tasks = tool_dev.load(category, splits, args.limit)
                run = (functools.partial(tool_dev.route_task, runtime.agent) if category == "chat"
                       else functools.partial(tool_dev.run_task, runtime.agent, category))
                done = run_each(category, tasks, run)
                report[category] = tool_dev.category_report(done, {task["id"]: task for task in tasks})
                outcomes += done
            report["model"] = runtime.backend.model_name
    report["seconds"] = round(time.perf_counter() - start, 1)
    report["outcomes"] = tool_dev.outcome_rows(outcomes)
    return report


def main() -> int:
    args = _arguments()
    try:
        report = evaluate_hand_written(args) if args.hand_written else evaluate(args)
    except LocalAgentError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    write_report(report, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
