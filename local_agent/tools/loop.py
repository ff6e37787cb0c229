"""The step loop: at each step the model (a `decide` callable, constrained to the action
schema) calls a tool, asks the user, or answers. Tool results go back to it as quoted data.

The loop is independent of any backend: `decide(messages, schema)` returns the step's action
as a dict. It only ever runs a call that `decide` wrote, so nothing inside a tool result or a
note can make a call by itself. Limits: `max_steps` model steps, and `tool_timeout` seconds per
call; reaching either ends the turn with the best answer so far and a notice."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ..errors import ToolError
from ..types import Message
from .actions import action_schema, decoding_schema, parse_action
from .base import Tool
from .runner import Outcome, run_tool
from .text import clean, cut, quoted_result

Decide = Callable[[Sequence[Message], dict[str, Any]], Mapping[str, Any]]
"""(messages so far, the action schema) -> the step's action as a dict."""
Approve = Callable[[str, dict[str, Any]], bool]
"""(tool name, arguments) -> whether the user allows the call."""
Stop = Literal["final", "ask_user", "direct", "max_steps", "timeout", "invalid_action"]

DENIED = "the user did not allow this call"


@dataclass(frozen=True)
class LoopLimits:
    max_steps: int = 4
    tool_timeout: float = 10.0  # seconds per call
    result_chars: int = 2000  # of a result, as the model reads it and as the log keeps it

    def __post_init__(self) -> None:
        if self.max_steps < 1 or self.tool_timeout <= 0 or self.result_chars < 100:
            raise ToolError("max_steps must be at least 1, tool_timeout above 0, result_chars at least 100")


@dataclass(frozen=True)
class ToolCall:
    """One call as it is logged with the turn: the result cut to the limit."""

    name: str
    arguments: dict[str, Any]
    result: str
    error: str | None
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "arguments": self.arguments, "result": self.result,
                "error": self.error, "seconds": round(self.seconds, 4)}


@dataclass(frozen=True)
class LoopResult:
    """A finished turn: the answer (or the question, with `asked_user`), every call made, the
    model steps taken, why the loop stopped, and notices for the user."""

    answer: str
    asked_user: bool
    tool_calls: tuple[ToolCall, ...]
    steps: int
    stop: Stop
    notices: tuple[str, ...] = field(default_factory=tuple)


class ToolLoop:
    def __init__(self, tools: Sequence[Tool], decide: Decide, *, limits: LoopLimits = LoopLimits(),
                 approve: Approve | None = None, special_tokens: Sequence[str] = ()) -> None:
        self.tools = {tool.name: tool for tool in tools}
        self.decide = decide
        self.limits = limits
        self.approve = approve
        self.special_tokens = tuple(special_tokens)

    def run(self, messages: Sequence[Message], only: Sequence[str] | None = None,
            allow_ask: bool = True) -> LoopResult:
        """Steps until an answer, a question or a limit. `only` narrows the tools offered."""
        schema = action_schema([self._tool(name) for name in (only if only is not None else self.tools)],
                               allow_ask=allow_ask)
        constrained = decoding_schema(schema)
        transcript = list(messages)
        calls: list[ToolCall] = []
        for step in range(1, self.limits.max_steps + 1):
            try:
                action = parse_action(self.decide(transcript, constrained), schema)
            except ToolError as exc:
                return _ended(calls, step, "invalid_action", f"the model's step {step} was {exc}")
            if action.kind != "tool":
                return LoopResult(action.text, action.kind == "ask_user", tuple(calls), step, action.kind)
            call, outcome = self._call(action.name, action.arguments)
            calls.append(call)
            transcript += [Message("assistant", json.dumps(action.to_dict(), ensure_ascii=False)),
                           Message("user", self._feedback(call))]
            if outcome.timed_out:
                notice = f"{call.name} gave no result within {self.limits.tool_timeout:g} s"
                return _ended(calls, step, "timeout", notice)
        return _ended(calls, self.limits.max_steps, "max_steps",
                      f"no final answer within {self.limits.max_steps} steps")

    def run_direct(self, name: str, arguments: Mapping[str, Any]) -> LoopResult:
        """A call the router chose by rule: its result is the answer, with no model step."""
        call, outcome = self._call(name, dict(arguments))
        if call.error is None:
            return LoopResult(call.result, False, (call,), 0, "direct")
        stop: Stop = "timeout" if outcome.timed_out else "direct"
        return LoopResult(f"{name} failed: {call.error}", False, (call,), 0, stop, (f"{name} failed: {call.error}",))

    def _call(self, name: str, arguments: dict[str, Any]) -> tuple[ToolCall, Outcome]:
        tool = self._tool(name)
        if self.approve is not None and not self.approve(name, arguments):
            outcome = Outcome("", DENIED, 0.0)
        else:
            outcome = run_tool(tool, arguments, self.limits.tool_timeout)
        result = cut(clean(outcome.result), self.limits.result_chars)
        return ToolCall(name, arguments, result, outcome.error, outcome.seconds), outcome

    def _feedback(self, call: ToolCall) -> str:
        if call.error == DENIED:
            return (f"The user did not allow the call to {call.name}. Answer without it, or ask the user.")
        if call.error is not None:
            return quoted_result(call.name, call.error, failed=True, special_tokens=self.special_tokens)
        return quoted_result(call.name, call.result, special_tokens=self.special_tokens)

    def _tool(self, name: str) -> Tool:
        if name not in self.tools:
            raise ToolError(f"unknown tool {name!r}; enabled: {', '.join(self.tools) or 'none'}")
        return self.tools[name]


def best_answer(calls: Sequence[ToolCall]) -> str:
    """The result of the last call that gave one, or empty."""
    return next((call.result for call in reversed(calls) if call.error is None and call.result), "")


def _ended(calls: list[ToolCall], steps: int, stop: Stop, notice: str) -> LoopResult:
    answer = best_answer(calls) or f"I could not finish this: {notice}."
    return LoopResult(answer, False, tuple(calls), steps, stop, (notice,))
