"""The tool evaluation: the generated task set (tool_tasks/) through the agent itself, as
`local-agent ask --tools --db ... --notes ...` runs it, and the tool-call rate on plain chat.

Per category it reports tool-choice accuracy (the tools called are the task's), schema-valid
calls (of the model's steps, the share that parsed as a valid action; a step cut by the
context is not counted against it), answer accuracy (the gold answer in the answer: a number
equal to the gold number, or the gold text as words), model steps and latency. Each task runs
in its own session from its own today, incognito (nothing is written); a memory task stores
its facts first and forgets them after."""

from __future__ import annotations

import functools
import json
import re
import statistics
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from local_agent.app import Runtime
from local_agent.dates.clock import now as clock_now
from local_agent.errors import InputError
from local_agent.turn.result import TurnResult
from local_agent.turn.tool_turn import ToolTurn

CATEGORIES = ("arithmetic", "date", "memory", "notes", "sql")
_NUMBER = re.compile(r"-?\d+(?:,\d{3})*(?:\.\d+)?")
_INVALID = re.compile(r"the model's step \d+ was not (?:a valid action|valid JSON)")


@dataclass(frozen=True)
class TaskOutcome:
    id: str
    category: str
    message: str
    gold: str
    answer: str
    correct: bool
    choice_ok: bool
    tools_called: tuple[str, ...]
    model_calls: int  # tool calls the model wrote (not those made by rule)
    invalid_steps: int  # model steps that did not parse as a valid action
    steps: int  # model steps
    stop: str
    seconds: float
    queries: tuple[dict[str, Any], ...] = ()  # SQL: each query call with its error and result


def load_tasks(folder: Path, limit: int | None = None) -> list[dict[str, Any]]:
    """The tasks of a generated set, at most `limit` per category (the first ones)."""
    tasks: list[dict[str, Any]] = []
    taken: dict[str, int] = {}
    for line in (folder / "tasks.jsonl").read_text(encoding="utf-8").splitlines():
        task = json.loads(line)
        if limit is None or taken.get(task["category"], 0) < limit:
            taken[task["category"]] = taken.get(task["category"], 0) + 1
            tasks.append(task)
    return tasks


def _numbers(text: str) -> list[float]:
    return [float(number.replace(",", "")) for number in _NUMBER.findall(text)]


def answer_correct(answer: str, task: dict[str, Any]) -> bool:
    """Whether `answer` holds the gold answer or one of its accepted spellings: a number
    equal to a numeric gold (numbers the question itself holds do not count, unless the
    gold is one of them), or the gold text as whole words."""
    for gold in [task["answer"], *task.get("accept", [])]:
        if re.fullmatch(r"-?\d+(?:\.\d+)?", gold):
            value = float(gold)
            asked = _numbers(task["message"])
            found = [n for n in _numbers(answer) if n not in asked or value in asked]
            if any(abs(n - value) < 0.005 for n in found):
                return True
        elif re.search(r"(?<!\w)" + re.escape(gold.lower()) + r"(?!\w)", answer.lower()):
            return True
    return False


def outcome_of(task: dict[str, Any], result: TurnResult) -> TaskOutcome:
    called = tuple(dict.fromkeys(call.name for call in result.tool_calls if call.name != "ask_user"))
    trace = result.tools
    rule_calls = trace.rule_calls if trace else 0
    model_calls = sum(1 for call in result.tool_calls if call.name != "ask_user") - rule_calls
    invalid = sum(1 for notice in result.notices if _INVALID.match(notice))
    return TaskOutcome(
        id=task["id"], category=task["category"], message=task["message"], gold=task["answer"],
        answer=result.answer, correct=answer_correct(result.answer, task),
        choice_ok=set(called) == set(task["tools"]), tools_called=called, model_calls=model_calls,
        invalid_steps=invalid, steps=trace.steps if trace else 0, stop=trace.stop if trace else "",
        seconds=result.timings.answer_s or 0.0,
        queries=tuple({"arguments": call.arguments, "error": call.error, "result": call.result}
                      for call in result.tool_calls if call.name == "sql_query"),
    )


def run_task(runtime: Runtime, task: dict[str, Any]) -> TaskOutcome:
    """One task in a fresh session from the task's today; a memory task's facts are stored
    before (as /remember stores them) and forgotten after."""
    agent, memory = runtime.agent, runtime.memory_service
    agent.use_session(task["id"])
    agent.clock = functools.partial(clock_now, str(task["today"]))
    facts = task.get("memories", [])
    if facts and memory is None:
        raise InputError(f"task {task['id']} stores memories: run it with memory on")
    stored = [memory.remember(fact, via="/remember", session=agent.session.name).record
              for fact in facts] if memory is not None else []
    try:
        result = agent.respond(task["message"])
        result.memory_work()
    finally:
        if memory is not None:
            for record in stored:
                memory.forget(record.id)
    return outcome_of(task, result)


def _share(flags: Iterable[bool]) -> float | None:
    values = list(flags)
    return round(sum(values) / len(values), 4) if values else None


def category_report(outcomes: Sequence[TaskOutcome]) -> dict[str, Any]:
    seconds = sorted(outcome.seconds for outcome in outcomes)
    model_calls = sum(outcome.model_calls for outcome in outcomes)
    invalid = sum(outcome.invalid_steps for outcome in outcomes)
    return {
        "tasks": len(outcomes),
        "tool_choice_accuracy": _share(outcome.choice_ok for outcome in outcomes),
        "answer_accuracy": _share(outcome.correct for outcome in outcomes),
        "model_calls": model_calls,
        "invalid_steps": invalid,
        "schema_valid_calls": round(model_calls / (model_calls + invalid), 4) if model_calls + invalid else None,
        "calls_by_rule": sum(len(outcome.tools_called) > 0 and outcome.model_calls == 0 for outcome in outcomes),
        "mean_model_steps": round(statistics.fmean(outcome.steps for outcome in outcomes), 2) if outcomes else None,
        "latency_s": {"median": round(statistics.median(seconds), 2) if seconds else None,
                      "p90": round(seconds[int(0.9 * (len(seconds) - 1))], 2) if seconds else None},
        "stops": _counts(outcome.stop for outcome in outcomes),
        **({"sql_queries": query_counts(outcomes)} if any(outcome.queries for outcome in outcomes) else {}),
    }


def query_counts(outcomes: Sequence[TaskOutcome]) -> dict[str, int]:
    """SQL queries written, valid (accepted by the tool's schema), run without error, and right
    (the rows hold the task's gold answer)."""
    counts = {"queries": 0, "valid": 0, "ran": 0, "right": 0}
    for outcome in outcomes:
        task = {"message": outcome.message, "answer": outcome.gold}
        for query in outcome.queries:
            error = query["error"] or ""
            counts["queries"] += 1
            counts["valid"] += not error.startswith(("bad arguments", "refused", "not a valid"))
            counts["ran"] += not error
            counts["right"] += not error and answer_correct(query["result"], task)
    return counts


def _counts(values: Iterable[str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for value in values:
        counts[value] = counts.get(value, 0) + 1
    return counts


def task_report(outcomes: Sequence[TaskOutcome]) -> dict[str, Any]:
    by_category = {name: [o for o in outcomes if o.category == name] for name in CATEGORIES}
    report = {name: category_report(items) for name, items in by_category.items() if items}
    report["all"] = category_report(outcomes)
    return report


def chat_rate(tool_turn: ToolTurn, messages: Iterable[str], examples: int = 10) -> dict[str, Any]:
    """How many plain chat messages the agent's router sends to a tool (every tool enabled):
    a message routed `none` gets the normal turn and can call nothing."""
    total, routed = 0, []
    for message in messages:
        total += 1
        route = tool_turn.route(message)
        if route.kind != "none":
            routed.append({"message": message, "route": route.kind, "tools": list(route.tools)})
    return {"messages": total, "routed": len(routed), "rate": round(len(routed) / total, 4) if total else None,
            "examples": routed[:examples]}


def outcome_rows(outcomes: Sequence[TaskOutcome]) -> list[dict[str, Any]]:
    return [asdict(outcome) for outcome in outcomes]


def run_each(category: str, tasks: Sequence[dict[str, Any]], run: Callable[[dict[str, Any]], Any]) -> list[Any]:
    """`run` over the tasks of one category, with its progress on stderr ("dates 3/14")."""
    done = []
    for number, task in enumerate(tasks, 1):
        done.append(run(task))
        print(f"\r{category} {number}/{len(tasks)}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    return done


def write_report(report: dict[str, Any], out: Path | None) -> None:
    """The whole report in `out` when given; on stdout, all of it but the per-row outcomes."""
    if out:
        out.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    shown = {key: value for key, value in report.items() if key != "outcomes"}
    print(json.dumps(shown, indent=2, ensure_ascii=False))
