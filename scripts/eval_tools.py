"""Evaluate the tools end to end on a model (the default unless --model says otherwise).

    python scripts/eval_tools.py --locomo LOCOMO_JSON [--limit N] [--seed N] [--out REPORT.json]

Generates the task set (as scripts/make_tool_tasks.py does) into a temporary folder, runs every
task through the agent with tools on (--db on its sample database, --notes on its notes folder,
memory on, incognito), and prints one JSON report: per category tool-choice accuracy,
schema-valid calls, answer accuracy, model steps and latency; and the share of plain chat
messages (LoCoMo dialogue turns, and with --chat-jsonl the `text` of each line of another
file) that the router sends to a tool. --limit takes the first N tasks of each category.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from evals.tool_eval import chat_rate, load_tasks, outcome_rows, run_task, task_report
from evals.tool_router import locomo_turns
from evals.tool_tasks.build import build_task_set

from local_agent.app import build_runtime
from local_agent.config import Settings
from local_agent.errors import LocalAgentError


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--locomo", type=Path, required=True, help="LoCoMo JSON (e.g. the dev conversations)")
    parser.add_argument("--chat-jsonl", type=Path, help="more plain chat: a JSONL file with a `text` per line")
    parser.add_argument("--limit", type=int, help="at most N tasks per category")
    parser.add_argument("--seed", type=int, default=0, help="the task set's seed")
    parser.add_argument("--model", default=Settings.model, help="registry name or model file")
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--out", type=Path, help="also write the report, with every task's outcome, here")
    return parser.parse_args()


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


def main() -> int:
    args = _arguments()
    try:
        report = evaluate(args)
    except LocalAgentError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if args.out:
        args.out.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    shown = {key: value for key, value in report.items() if key != "outcomes"}
    print(json.dumps(shown, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
