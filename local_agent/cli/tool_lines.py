"""Tool calls on the terminal: one short line per call as it is made, and the full trace of a
turn for /trace. Everything that came from a tool or the user is shown through printable()."""

from __future__ import annotations

import json
from typing import Any

from ..tools.loop import ASK_USER, ToolCall
from ..turn.result import TurnResult
from .display import printable

SHORT_CHARS = 60


def _short(text: str, limit: int = SHORT_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _arguments(arguments: dict[str, Any]) -> str:
    if len(arguments) == 1:
        [value] = arguments.values()
        return value if isinstance(value, str) else json.dumps(value)
    return ", ".join(f"{key}={json.dumps(value, ensure_ascii=False)}" for key, value in arguments.items())


def call_line(call: ToolCall) -> str:
    """E.g. `· calculator(17 * 23) → 17 * 23 = 391 (0.01 s)`."""
    if call.name == ASK_USER:
        return printable(f"· asked: {_short(call.arguments.get('question', ''))} → {_short(call.result)}")
    first = call.result.split("\n", 1)[0]
    more = call.result.count("\n")
    outcome = f"✗ {_short(call.error)}" if call.error else _short(first) + (f" (+{more} lines)" if more else "")
    return printable(f"· {call.name}({_short(_arguments(call.arguments), 40)}) → {outcome} ({call.seconds:.2f} s)")


def trace_lines(result: TurnResult) -> list[str]:
    """The last turn's route, every call in full (arguments, result as logged, error, time),
    and how the steps ended."""
    trace = result.tools
    if trace is None:
        return ["(tools are off in this chat: start it with --tools, --db or --notes)"]
    lines = [f"route: {trace.route} ({trace.reason})"]
    if trace.route != "none":
        lines.append(f"model steps: {trace.steps}; ended: {trace.stop}; calls by rule: {trace.rule_calls}")
    for number, call in enumerate(result.tool_calls, 1):
        lines.append(f"{number}. {call.name} ({call.seconds:.3f} s)")
        lines.append("   arguments: " + json.dumps(call.arguments, ensure_ascii=False))
        if call.error is not None:
            lines.append(f"   error: {call.error}")
        if call.result:
            lines += ["   result:"] + ["     " + line for line in call.result.split("\n")]
    lines += [f"notice: {notice}" for notice in result.notices]
    return [printable(line) for line in lines]
