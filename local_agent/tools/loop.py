"""The step loop: at each step the model (a `decide` callable, constrained to the action
schema) calls a tool, asks the user, or answers. Tool results go back to it as quoted data.

The loop is independent of any backend: `decide(messages, schema)` returns the step's action
as a dict. It only ever runs a call that `decide` wrote (or, before the first step, the one
call the router filled in by rule), so nothing inside a tool result or a note can make a call
by itself. Limits: `max_steps` model steps, and `tool_timeout` seconds per call; reaching
either ends the turn with the best answer so far and a notice. A call the model repeats
word for word is not run again: the model is told so, and its next step may only answer; so
may the step after a tool's second failure (a failed call gets one retry with its error).

`ask_user` ends the turn with the question, unless the caller can ask (`ask`, in a chat):
then the user's reply goes back to the model and the loop goes on. Every step that ran a
call or asked is logged as a ToolCall (an exchange with the user under the name ask_user)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ..errors import ToolError
from ..types import Message
from .actions import Action, action_schema, decoding_schema, parse_action
from .base import Tool
from .runner import Outcome, run_tool
from .text import clean, cut, neutralize, quoted_result

Decide = Callable[[Sequence[Message], dict[str, Any]], Mapping[str, Any]]
"""(messages so far, the action schema) -> the step's action as a dict."""
Approve = Callable[[str, dict[str, Any]], bool]
"""(tool name, arguments) -> whether the user allows the call."""
AskUser = Callable[[str], "str | None"]
"""(question) -> the user's reply, or None when none came (the turn then ends with the question)."""
Stop = Literal["final", "ask_user", "direct", "max_steps", "timeout", "invalid_action", "interrupted"]

DENIED = "the user did not allow this call"
ASK_USER = "ask_user"  # the name under which an exchange with the user is logged
REPEATED = "You already made this call and its result is above. Give the final answer now."
MAX_RETRIES = 1  # after a tool failed, one more call of it with the error in view; then the loop ends


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
    model steps taken, why the loop stopped, notices for the user, and how many of the calls
    were filled in by rule rather than written by the model."""

    answer: str
    asked_user: bool
    tool_calls: tuple[ToolCall, ...]
    steps: int
    stop: Stop
    notices: tuple[str, ...] = field(default_factory=tuple)
    rule_calls: int = 0


@dataclass
class _Run:
    """One run's state: the transcript the model reads, the calls made so far, and whether
    its next step may only answer."""

    transcript: list[Message]
    on_call: Callable[[ToolCall], None] | None = None
    calls: list[ToolCall] = field(default_factory=list)
    must_answer: bool = False
    rule_calls: int = 0

    def add(self, action: Action, call: ToolCall | None, reply: str) -> None:
        """The model's action and what came of it, as the next two messages it reads."""
        self.transcript += [Message("assistant", json.dumps(action.to_dict(), ensure_ascii=False)),
                            Message("user", reply)]
        if call is not None:
            self.calls.append(call)
            if self.on_call is not None:
                self.on_call(call)

    def repeats(self, action: Action) -> bool:
        key = _call_key(action.name, action.arguments)
        return any(_call_key(call.name, call.arguments) == key for call in self.calls if call.name != ASK_USER)

    def result(self, answer: str, steps: int, stop: Stop, *, asked: bool = False) -> LoopResult:
        return LoopResult(answer, asked, tuple(self.calls), steps, stop, rule_calls=self.rule_calls)

    def ended(self, steps: int, stop: Stop, notice: str) -> LoopResult:
        answer = best_answer(self.calls) or f"I could not finish this: {notice}."
        return LoopResult(answer, False, tuple(self.calls), steps, stop, (notice,), self.rule_calls)


def _call_key(name: str, arguments: Mapping[str, Any]) -> str:
    return name + json.dumps(arguments, sort_keys=True, ensure_ascii=False)


class ToolLoop:
    def __init__(self, tools: Sequence[Tool], decide: Decide, *, limits: LoopLimits = LoopLimits(),
                 approve: Approve | None = None, special_tokens: Sequence[str] = (), final_text: bool = True) -> None:
        """Without `final_text` the final action carries no answer: the caller writes it."""
        self.final_text = final_text
        self.tools = {tool.name: tool for tool in tools}
        self.decide = decide
        self.limits = limits
        self.approve = approve
        self.special_tokens = tuple(special_tokens)

    def run(self, messages: Sequence[Message], only: Sequence[str] | None = None, allow_ask: bool = True, *,
            first: tuple[str, Mapping[str, Any]] | None = None, ask: AskUser | None = None,
            on_call: Callable[[ToolCall], None] | None = None) -> LoopResult:
        """Steps until an answer, a question or a limit. `only` narrows the tools offered;
        `first` is a call filled in by rule, made before the model's first step; `ask` asks
        the user a question the model wrote; `on_call` sees each call as it is made."""
        schema = action_schema([self._tool(name) for name in (only if only is not None else self.tools)],
                               allow_ask=allow_ask, final_text=self.final_text)
        run = _Run(list(messages), on_call)
        if first is not None:
            run.rule_calls = 1
            name, arguments = first
            if self._run_call(run, Action("tool", name=name, arguments=dict(arguments))).timed_out:
                return run.ended(0, "timeout", f"{name} gave no result within {self.limits.tool_timeout:g} s")
        return self._steps(run, schema, ask)

    def _steps(self, run: _Run, schema: dict[str, Any], ask: AskUser | None) -> LoopResult:
        answer_only = action_schema([], allow_ask=False, final_text=self.final_text)
        for step in range(1, self.limits.max_steps + 1):
            offered = answer_only if run.must_answer else schema
            try:
                action = parse_action(self.decide(run.transcript, decoding_schema(offered)), offered)
            except ToolError as exc:
                return run.ended(step, "invalid_action", f"the model's step {step} was {exc}")
            if action.kind == "final":
                return run.result(action.text, step, "final")
            if action.kind == "ask_user":
                if not self._ask(run, action, ask):
                    return run.result(action.text, step, "ask_user", asked=True)
            elif run.repeats(action):
                run.add(action, None, REPEATED)
                run.must_answer = True
            elif self._run_call(run, action).timed_out:
                return run.ended(step, "timeout", f"{action.name} gave no result within {self.limits.tool_timeout:g} s")
        return run.ended(self.limits.max_steps, "max_steps", f"no final answer within {self.limits.max_steps} steps")

    def run_direct(self, name: str, arguments: Mapping[str, Any],
                   on_call: Callable[[ToolCall], None] | None = None) -> LoopResult:
        """A call the router chose by rule: its result is the answer, with no model step."""
        call, outcome = self._call(name, dict(arguments))
        if on_call is not None:
            on_call(call)
        if call.error is None:
            return LoopResult(call.result, False, (call,), 0, "direct", rule_calls=1)
        stop: Stop = "timeout" if outcome.timed_out else "direct"
        notice = f"{name} failed: {call.error}"
        return LoopResult(notice, False, (call,), 0, stop, (notice,), rule_calls=1)

    def _run_call(self, run: _Run, action: Action) -> Outcome:
        call, outcome = self._call(action.name, action.arguments)
        run.add(action, call, self._feedback(call))
        failures = sum(1 for made in run.calls if made.name == call.name and made.error is not None)
        if failures > MAX_RETRIES:  # a call that failed gets one retry with its error, not more
            run.must_answer = True
        return outcome

    def _ask(self, run: _Run, action: Action, ask: AskUser | None) -> bool:
        """Put the model's question to the user; False when there is nobody to ask or no reply."""
        if ask is None:
            return False
        start = time.perf_counter()
        reply = ask(action.text)
        if reply is None or not reply.strip():
            return False
        reply = neutralize(clean(reply), self.special_tokens)
        call = ToolCall(ASK_USER, {"question": action.text}, cut(reply, self.limits.result_chars), None,
                        time.perf_counter() - start)
        run.add(action, call, reply)
        return True

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
    """The result of the last tool call that gave one, or empty."""
    return next((call.result for call in reversed(calls)
                 if call.error is None and call.result and call.name != ASK_USER), "")
