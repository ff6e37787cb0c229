"""The hand-written tool dev sets (tool_dev/): arithmetic, dates and SQL run through the
agent as `ask --tools --db DB --json --no-memory` runs them, plain chat through the router.

Each task runs in a fresh session from its own today with memory off. A task is right when
its answer holds the gold answer (tool_eval.answer_correct). Per category it reports answer
accuracy, how each answer was reached (the tool turn's `check` path: direct, accepted,
retried, templated, failed) and the latency of a tool turn (p50, p95); for SQL, how many of
the model's queries were valid, ran and were right (the run query's rows hold the gold
answer); for plain chat, the share of messages routed to no tool; and the values of the final
answers that nothing of the turn supports (the question, the results and their arguments)."""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from local_agent.dates.clock import now as clock_now
from local_agent.grounding import check
from local_agent.turn.agent import Agent
from local_agent.turn.result import TurnResult
from local_agent.turn.tool_answer import sources

from .tool_eval import answer_correct

FOLDER = Path(__file__).parent / "tool_dev"
CATEGORIES = ("arithmetic", "dates", "sql", "chat")
SPLITS = ("dev", "heldout")
DEFAULT_TODAY = "2026-03-11"


@dataclass(frozen=True)
class DevOutcome:
    id: str
    category: str
    split: str
    style: str
    message: str
    gold: str
    answer: str
    correct: bool
    route: str
    path: str  # how the answer was reached (ToolTrace.check), or the route for chat
    tools_called: tuple[str, ...]
    queries: tuple[dict[str, Any], ...]  # SQL: each query call with its error
    seconds: float
    unsupported: tuple[str, ...] = ()  # values of the answer that nothing of the turn supports


def load(category: str, splits: Iterable[str] = SPLITS, limit: int | None = None) -> list[dict[str, Any]]:
    """The tasks of one category in `splits`, the first `limit` of them."""
    wanted = set(splits)
    lines = (FOLDER / f"{category}.jsonl").read_text(encoding="utf-8").splitlines()
    return [task for task in map(json.loads, lines) if task["split"] in wanted][:limit]


def run_task(agent: Agent, category: str, task: dict[str, Any]) -> DevOutcome:
    agent.use_session(task["id"])
    agent.clock = functools.partial(clock_now, str(task.get("today", DEFAULT_TODAY)))
    result = agent.respond(task["message"])
    return _outcome(category, task, result)


def route_task(agent: Agent, task: dict[str, Any]) -> DevOutcome:
    """A plain chat task: only the router's decision (a `none` route calls no tool)."""
    assert agent.tool_turn is not None
    route = agent.tool_turn.route(task["message"])
    return DevOutcome(task["id"], "chat", task["split"], task["style"], task["message"], "", "",
                      route.kind == "none", route.kind, route.kind, route.tools, (), 0.0)


def _outcome(category: str, task: dict[str, Any], result: TurnResult) -> DevOutcome:
    trace = result.tools
    called = tuple(dict.fromkeys(call.name for call in result.tool_calls))
    queries = tuple({"arguments": call.arguments, "error": call.error, "result": call.result}
                    for call in result.tool_calls if call.name == "sql_query")
    path = getattr(trace, "check", "") or (trace.route if trace else "")
    verdict = check(result.answer, sources(task["message"], result.tool_calls))
    return DevOutcome(task["id"], category, task["split"], task["style"], task["message"], task["answer"],
                      result.answer, answer_correct(result.answer, task), trace.route if trace else "", path,
                      called, queries, result.timings.answer_s or 0.0,
                      tuple(value.text for value in verdict.unsupported))


def _percentile(values: Sequence[float], share: float) -> float | None:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(share * len(ordered)))], 3) if ordered else None


def _counts(values: Iterable[str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for value in values:
        counts[value] = counts.get(value, 0) + 1
    return dict(sorted(counts.items()))


def query_report(outcomes: Sequence[DevOutcome], tasks: dict[str, dict[str, Any]]) -> dict[str, int]:
    """SQL: queries written, valid (accepted by the tool), run without error, and right (the
    rows of a query that ran hold the task's gold answer)."""
    counts = {"queries": 0, "valid": 0, "ran": 0, "right": 0}
    for outcome in outcomes:
        for query in outcome.queries:
            error = query["error"] or ""
            counts["queries"] += 1
            counts["valid"] += not error.startswith(("bad arguments", "refused", "not a valid"))
            counts["ran"] += not error
            counts["right"] += not error and answer_correct(query["result"], tasks[outcome.id])
    return counts


def category_report(outcomes: Sequence[DevOutcome], tasks: dict[str, dict[str, Any]]) -> dict[str, Any]:
    report: dict[str, Any] = {"tasks": len(outcomes)}
    for split in SPLITS:
        chosen = [o for o in outcomes if o.split == split]
        if chosen:
            report[split] = round(sum(o.correct for o in chosen) / len(chosen), 4)
    report["paths"] = _counts(o.path for o in outcomes)
    answered = [o for o in outcomes if o.route not in ("", "none")]
    if answered:
        report["templated_share"] = round(sum(o.path == "templated" for o in answered) / len(answered), 4)
        report["unsupported_values"] = sum(len(o.unsupported) for o in answered)
    tool_turns = [o.seconds for o in outcomes if o.route not in ("", "none")]
    report["latency_s"] = {"p50": _percentile(tool_turns, 0.5), "p95": _percentile(tool_turns, 0.95)}
    if any(o.queries for o in outcomes):
        report["sql_queries"] = query_report(outcomes, tasks)
    report["by_style"] = {style: round(sum(o.correct for o in items) / len(items), 3)
                          for style in sorted({o.style for o in outcomes})
                          if (items := [o for o in outcomes if o.style == style])}
    return report


def outcome_rows(outcomes: Sequence[DevOutcome]) -> list[dict[str, Any]]:
    return [asdict(outcome) for outcome in outcomes]
