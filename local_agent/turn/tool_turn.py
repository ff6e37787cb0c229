"""A turn with tools: the router decides first, then the tool runs by rule or the step loop
runs with the model.

- `none`: plain chat, the normal turn (no extra model call).
- `direct`: an arithmetic or date question the rules read exactly; the tool's result is the
  answer, with no model call.
- `problem`: a word problem (reading/problems): its reading's answer, or the reading said back
  and asked about when it does not win clearly; no model call.
- `unsure`: a date question of a form no rule reads whole (tools/coverage.py): said back and
  asked about; no model call.
- `model`: the step loop, each step one greedy model call constrained to the action schema
  of the router's candidate tools (so an injected "call sql_query" in a note cannot even be
  written when sql_query was not offered), with the tools' instructions in the system prompt,
  worked examples of the offered tools before the dialogue, and the calculator's numbers
  grounded in the message (tools/narrowing.py). The steps only call tools; the answer is then
  phrased by a step that sees only the question and the results, and checked against them
  (tool_answer.py).

With approval on, each call is put to the user first (the approver, from the front end);
when nobody can be asked every call is denied, with a notice, and the model is told.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any

from ..backends.base import Backend
from ..errors import ApprovalUnavailable, ToolError
from ..grounding import check
from ..reading import Reading
from ..reading.values import Value, extract
from ..tools.actions import capped, instructions
from ..tools.base import Tool
from ..tools.coverage import percent_as_amount, period_left_out, sql_text, unused_numbers
from ..tools.intent import Intent
from ..tools.loop import Approve, AskUser, LoopLimits, LoopResult, ToolCall, ToolLoop
from ..tools.measures import reading_doubt
from ..tools.narrowing import grounded
from ..tools.plain import failure_answer
from ..tools.router import Route, Router
from ..tools.sql import TIED, left_out, written_sql
from ..tools.text import quoted_result
from ..types import GenerationSettings, Message
from .answering import Answer
from .problem_said import problem_said
from .result import TokenCounts, ToolTrace
from .tool_answer import AnswerStep, Phrased, sources

OnCall = Callable[[ToolCall], None]
# A turn's callbacks: on_token, ask, on_call (Agent.respond).
Callbacks = tuple[Callable[[str], None] | None, AskUser | None, OnCall | None]
PHRASED = frozenset({"sql_query"})  # tools whose result, read by rule, the model still phrases
DECIDE_MAX_TOKENS = 1024  # one step's action at most
ACTION_OVERHEAD_TOKENS = 48  # the JSON around the one free-text string of an action
MIN_STEP_TOKENS = ACTION_OVERHEAD_TOKENS + 4 * 16  # room for 16 characters of text
STEP_ROOM_TOKENS = 768  # kept free in a model route's prompt for the steps' calls and results


def text_bound(room: int) -> int:
    """The longest free text (in characters) one step may write with `room` tokens: a
    character takes at most 4 tokens (byte tokens), rounded down to 16 so that the compiled
    grammar is reused from step to step."""
    return (room - ACTION_OVERHEAD_TOKENS) // 4 // 16 * 16


@dataclass(frozen=True)
class ToolOutcome:
    """What the tools made of a turn: the answer (a question when `asked_user`), the calls,
    the trace, notices, the model's token counts over its steps, and the outcome
    (TurnResult.outcome: "answer" when the program stands behind it, else "unsure")."""

    answer: str
    calls: tuple[ToolCall, ...]
    trace: ToolTrace
    asked_user: bool = False
    interrupted: bool = False
    notices: tuple[str, ...] = ()
    tokens: TokenCounts = field(default_factory=TokenCounts)  # over the model's steps
    outcome: str = "answer"


@lru_cache(maxsize=1)
def _all_examples() -> dict[str, Any]:
    text = resources.files("local_agent").joinpath("prompts", "tool_examples.json").read_text(encoding="utf-8")
    return dict(json.loads(text))


def example_messages(tools: Sequence[str]) -> list[Message]:
    """Worked examples for the offered tools, as earlier turns of the dialogue."""
    messages: list[Message] = []
    for name in tools:
        for example in _all_examples().get(name, []):
            messages.append(Message("user", example["user"]))
            for tool, arguments, result in example["calls"]:
                action = {"action": "tool", "name": tool, "arguments": arguments}
                messages += [Message("assistant", json.dumps(action)), Message("user", quoted_result(tool, result))]
            messages.append(Message("assistant", json.dumps({"action": "final"})))
    return messages


def _no_terminal(name: str, arguments: dict[str, Any]) -> bool:
    raise ApprovalUnavailable("nobody can be asked to approve it")


class ToolTurn:
    """The enabled tools over one backend. `approver` asks the user about a call (it raises
    ApprovalUnavailable when it cannot ask); it is used while `approving` is on."""

    def __init__(self, tools: Sequence[Tool], backend: Backend, *, max_steps: int = 4, tool_timeout: float = 10.0,
                 seed: int = 0, approver: Approve | None = None, approving: bool = False,
                 intent: Intent | None = None) -> None:
        self.tools = {tool.name: tool for tool in tools}
        self.router = Router(self.tools, intent)
        self.backend = backend
        result_chars = min(2000, max(200, backend.context_size * 3 // 4))
        self.limits = LoopLimits(max_steps=max_steps, tool_timeout=tool_timeout, result_chars=result_chars)
        self.seed = seed
        self.approver = approver or _no_terminal
        self.approving = approving
        self.answer_step = AnswerStep(backend, seed)

    def answer(self, route: Route, messages: Sequence[Message], reading: Reading, callbacks: Callbacks,
               timings: dict[str, float], start: float) -> Answer:
        """The answer of a `direct` or `model` route (`run`), shown as a normal one is shown."""
        on_token, ask, on_call = callbacks
        outcome = self.run(route, messages, reading, ask=ask, on_call=on_call)
        shown = timed_answer(outcome, on_token, start, timings)
        return Answer(outcome.answer, outcome.interrupted, outcome.tokens, shown, outcome)

    def route(self, message: Reading | str) -> Route:
        return self.router.route(message)

    def directive(self, base: str, route: Route) -> str:
        """The system directive of a model route: `base` and the offered tools' instructions."""
        return base.strip() + "\n\n" + instructions([self.tools[name] for name in route.tools], final_text=False)

    def reserve(self, route: Route) -> int:
        """Tokens a model route keeps free when the prompt is composed: for the worked
        examples and for the steps."""
        examples = example_messages(route.tools)
        example_tokens = sum(self.backend.count_tokens(m.content) + 8 for m in examples)
        return example_tokens + STEP_ROOM_TOKENS

    def run(self, route: Route, messages: Sequence[Message], reading: Reading | str, *, ask: AskUser | None = None,
            on_call: OnCall | None = None) -> ToolOutcome:
        """Answer a `direct` or `model` route for the message the turn read (or a text).
        `messages` are the composed prompt (its system message from `directive`); `ask` asks the
        user (chat only); `on_call` sees each call."""
        message = reading.text if isinstance(reading, Reading) else reading
        if route.kind == "problem":
            return word_problem(route, message)
        if route.kind == "unsure":
            return unread_date(route)
        notices: list[str] = []
        made: list[ToolCall] = []

        def seen(call: ToolCall) -> None:
            made.append(call)
            if on_call is not None:
                on_call(call)

        tokens = {"prompt": 0, "completion": 0}
        loop = self._loop(route, reading, notices, tokens)
        try:
            if route.kind == "direct":
                result = loop.run_direct(route.tools[0], route.arguments, on_call=seen)
            else:
                prompt = [messages[0], *example_messages(route.tools), *messages[1:]]
                first = (route.first, route.arguments) if route.first else None
                result = loop.run(prompt, first=first, ask=ask, on_call=seen)
            phrased = self._phrase(route, message, result)
        except KeyboardInterrupt:
            result = LoopResult("", False, tuple(made), 0, "interrupted")
            phrased = Phrased("", "failed")
        for key in tokens:
            tokens[key] += phrased.tokens[key]
        asked = result.asked_user and phrased.check == "asked"
        numbers = reading.numbers if isinstance(reading, Reading) else tuple(extract(message, ("number",)))
        doubt = (self._doubt(route, message, result.tool_calls) or numbers_left_out(route, numbers, message)
                 if phrased.check not in ("failed", "asked") else "")
        unsure = asked or bool(doubt) or phrased.check == "failed" or not phrased.text
        return ToolOutcome(
            answer=f"{doubt} {phrased.text}" if doubt else phrased.text, calls=result.tool_calls, asked_user=asked,
            interrupted=result.stop == "interrupted", notices=(*notices, *result.notices),
            tokens=TokenCounts(**tokens),
            trace=ToolTrace(route.kind, route.reason, result.steps, result.stop, result.rule_calls, phrased.check,
                            tuple(value.text for value in phrased.rejected)),
            outcome="unsure" if unsure else "answer",
        )

    def _doubt(self, route: Route, message: str, calls: Sequence[ToolCall]) -> str:
        """Why a database answer may not answer the question, with the query it ran ("I'm not
        sure this answers your question: ..."), or "": a query read by rule that leaves a part
        of the question out (tools/coverage.py), or any query the model wrote (read by no rule,
        so nothing says it is the one asked). A calculation the model wrote is shown the same way."""
        worked = [call for call in calls if call.name in ("calculator", "date") and not call.error]
        if route.kind == "model" and worked and worked[-1].name == "calculator":
            expression = worked[-1].arguments.get("expression", "")
            return ("I'm not sure this answers your question (the model chose the calculation). "
                    f"I worked out: {expression}.")
        if route.kind == "model" and worked:  # no date rule reads the question: the model's reading is a guess
            return "I'm not sure this answers your question (the model chose the date reading). It says:"
        ran = [call for call in calls if call.name == "sql_query" and not call.error]
        if not ran and route.kind == "model" and "sql_query" in route.tools and not worked:
            return "I'm not sure this answers your question (no query of your database was run). It says:"
        if route.kind == "model" and not worked and not ran and {"calculator", "date"} & set(route.tools):
            return "I'm not sure this answers your question (nothing was worked out). It says:"  # the model's guess
        if not ran or "sql_query" not in self.tools:
            return ""
        written = written_sql(self.tools["sql_query"], ran[-1].arguments)
        if written is None:
            return ""
        part = (left_out(self.tools["sql_query"], message, ran[-1].arguments) if route.kind == "direct"
                else "the query was written by the model")
        if part is None and TIED in ran[-1].result:
            part = "a tie: more than one row has that place"
        if part is None:
            return ""
        return f"I'm not sure this answers your question ({part}). I ran: {sql_text(*written)}. It says:"

    def _phrase(self, route: Route, message: str, result: LoopResult) -> Phrased:
        """The answer of a finished loop: a rule's result as it is; the model's question to
        the user when it asserts nothing the turn does not hold; else the answer step's."""
        if route.kind == "direct":
            if result.tool_calls[0].error:
                return Phrased(failure_answer(result.tool_calls, message), "failed")
            if route.tools[0] in PHRASED:  # a table of rows is no answer: the model phrases it
                return self.answer_step.answer(message, result.tool_calls)
            return Phrased(result.answer, "direct")
        if result.asked_user and check(result.answer, sources(message, result.tool_calls)).ok:
            return Phrased(result.answer, "asked")
        return self.answer_step.answer(message, result.tool_calls, "; ".join(result.notices))

    def _loop(self, route: Route, message: Reading | str, notices: list[str], tokens: dict[str, int]) -> ToolLoop:
        # A call by rule uses the tool as it is; the model's arguments are narrowed to the message.
        offered = [self.tools[name] if route.kind == "direct" else grounded(self.tools[name], message)
                   for name in route.tools]
        return ToolLoop(offered, self._decider(tokens), limits=self.limits, approve=self._approval(notices),
                        special_tokens=self.backend.special_tokens, final_text=False)

    def _decider(self, tokens: dict[str, int]) -> Callable[[Sequence[Message], dict[str, Any]], Any]:
        def decide(messages: Sequence[Message], schema: dict[str, Any]) -> Any:
            """One step: greedy, constrained to `schema`, within what the context has left."""
            room = min(DECIDE_MAX_TOKENS, self.backend.context_size - self.backend.count_prompt_tokens(messages))
            if room < MIN_STEP_TOKENS:
                raise ToolError("out of room: the steps so far fill the model's context")
            settings = GenerationSettings(max_tokens=room, temperature=0.0, seed=self.seed)
            completion = self.backend.generate(messages, settings, json_schema=capped(schema, text_bound(room)))
            tokens["prompt"] += completion.prompt_tokens
            tokens["completion"] += completion.completion_tokens
            try:
                return json.loads(completion.text)
            except ValueError:
                ended = "at the length limit" if completion.finish_reason == "length" else "early"
                raise ToolError(f"not valid JSON (it stopped {ended})") from None
        return decide

    def _approval(self, notices: list[str]) -> Approve | None:
        if not self.approving:
            return None
        approver = self.approver

        def approve(name: str, arguments: dict[str, Any]) -> bool:
            try:
                allowed = approver(name, arguments)
            except ApprovalUnavailable as exc:
                allowed, note = False, f"{name} was not run: approval is on and {exc}"
            else:
                note = "" if allowed else f"you did not allow {name}"
            if note and note not in notices:
                notices.append(note)
            return allowed
        return approve


def numbers_left_out(route: Route, numbers: Sequence[Value], message: str = "") -> str:
    """Why a calculation or date read by rule may not answer the question: a percentage of
    `message` used as a plain number, or a number of the message it does not use
    (tools/coverage.py), or ""."""
    if route.kind != "direct" or route.tools[0] not in ("calculator", "date"):
        return ""
    expression = route.arguments.get("expression", "")
    if route.tools[0] == "calculator" and (percent := percent_as_amount(message, expression)):
        return (f"I'm not sure this answers your question: it uses the {percent} you gave as a plain number. "
                "I read it as:")
    if route.tools[0] == "calculator" and re.fullmatch(r"\s*-?\d+(?:\.\d+)?\s*", expression):
        return "I'm not sure this answers your question: it works nothing out. I read it as:"  # "7.5 hours ... a week"
    if route.tools[0] == "calculator" and (period := period_left_out(message, expression)):
        return f"I'm not sure this answers your question: it leaves out {period} you asked about. I read it as:"
    if route.tools[0] == "calculator" and (doubt := reading_doubt(message, expression)):
        return f"I'm not sure this answers your question: {doubt}. I read it as:"
    unused = unused_numbers(numbers, route.arguments)
    if not unused:
        return ""
    named = " and ".join(unused) if len(unused) < 3 else ", ".join(unused[:-1]) + f" and {unused[-1]}"
    return f"I'm not sure this answers your question: it leaves out the {named} you gave. I read it as:"


def word_problem(route: Route, message: str) -> ToolOutcome:
    """The solver's reply to a word problem: its answer with the reading, or, unsure, the
    reading said back and asked about (a question to the user)."""
    said = problem_said(message)
    # the router asks the same question of the same text: None is not reached
    said_text, outcome = said or ("I'm not sure how to work this out from what you wrote.", "unsure")
    trace = ToolTrace(route.kind, route.reason, stop="answered", check="direct" if outcome == "answer" else "unsure")
    return ToolOutcome(said_text, (), trace, asked_user=said_text.endswith("?"), outcome=outcome)


def unread_date(route: Route) -> ToolOutcome:
    """A date question of a form no rule reads whole: what was understood, said back and asked."""
    part = route.arguments.get("part", "this")
    said = (f"I'm not sure: this asks for {part}, which I cannot work out exactly yet. Can I work out a plain "
            "date, a weekday or a number of days between two dates instead?")
    return ToolOutcome(said, (), ToolTrace(route.kind, route.reason, stop="answered", check="unsure"),
                       asked_user=True, outcome="unsure")


def timed_answer(outcome: ToolOutcome, on_token: Callable[[str], None] | None, start: float,
                 timings: dict[str, float]) -> float:
    """Show the answer as a normal one is shown (one chunk) and note its timings; returns
    when it was shown (perf_counter clock)."""
    shown = time.perf_counter()
    timings["tools_s"] = shown - start
    if outcome.answer and on_token is not None:
        timings["first_token_s"] = shown - start
        on_token(outcome.answer)
    timings["answer_s"] = time.perf_counter() - start
    return shown
