"""What a turn gives back: its final result, and the memory work done after the answer, with
their token counts and timings as small frozen records (their JSON keeps the names and the
shape the string-keyed dicts had: `to_dict`)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from concurrent.futures import Future
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, Literal, Self, cast

from ..prompt import ComposedPrompt
from ..types import RecallHit

if TYPE_CHECKING:
    from ..memory.distill.saving import SaveOutcome
    from ..tools.loop import ToolCall


# What an answer is worth, set by the program: `answer` (it stands behind it), `unsure` (it says
# so, with what it did understand), `not_told` ("You haven't told me ..."); None for a turn that
# answers no question (a statement, a greeting, a goodbye).
Outcome = Literal["answer", "unsure", "not_told"]
NOT_TOLD_ROUTES = frozenset({"template:not-told", "dont-remember"})
# Replies that only say back what memory holds: not stored as new things the assistant said
# (turn/memory_work.py), so that a stored passage is never quoted inside another quote.
FROM_MEMORY_ROUTES = NOT_TOLD_ROUTES | {"grounded", "retried", "template:evidence", "template:name", "template:when",
                                       "template:chosen", "template:not-held"}
ANSWERING_TEMPLATES = frozenset({"template:evidence", "template:name", "template:about-me", "template:when",
                                 "template:calculation", "template:chosen", "template:not-held"})


def outcome_of(asks: bool, reply_route: str, answer: str, decided: str = "") -> Outcome | None:
    """The outcome of a turn whose message asks (`asks`) or not, made as `reply_route` says
    (turn/replies.py), whose answer reads `answer`; `decided` when the step that made the answer
    (the tool turn, the word-problem reader) already knows it."""
    if decided in ("answer", "unsure", "not_told"):
        return cast(Outcome, decided)
    reply_route = reply_route.rpartition("+")[2]  # "template:introduction+grounded": what answered
    if reply_route in NOT_TOLD_ROUTES:
        return "not_told"
    canned = reply_route.startswith("template:") and reply_route not in ANSWERING_TEMPLATES
    if not asks or canned:
        return None
    return "unsure" if _UNSURE.search(answer) else "answer"


_UNSURE = re.compile(r"\b(?:I (?:don't|do not) know|I'm not sure|I am not sure|not certain|I can't tell)\b", re.I)


@dataclass(frozen=True)
class TokenCounts:
    """The tokens of a turn's model calls: the prompts' and the answers' (a tool turn sums its
    steps)."""

    prompt: int = 0
    completion: int = 0

    def to_dict(self) -> dict[str, int]:
        return {"prompt": self.prompt, "completion": self.completion}


@dataclass(frozen=True)
class _Seconds:
    """Timings of which each field is measured or None (the step did not happen). `measured`
    builds one from what a stopwatch dict holds (TypeError for a name that is no field);
    `to_dict` gives the measured ones, in the fields' order."""

    @classmethod
    def measured(cls, seconds: Mapping[str, float]) -> Self:
        return cls(**seconds)

    def to_dict(self) -> dict[str, float]:
        return {item.name: value for item in fields(self) if (value := getattr(self, item.name)) is not None}


def measured(seconds: float | None) -> float:
    """A timing that must be there (a benchmark reads one): ValueError when the step did not
    happen."""
    if seconds is None:
        raise ValueError("this step was not measured in the turn")
    return seconds


@dataclass(frozen=True)
class TurnTimings(_Seconds):
    """When each step of a turn ended, in seconds from the turn's start, or how long it took."""

    recall_s: float | None = None  # recall (the query's embedding included)
    compose_s: float | None = None  # composing the prompt
    model_first_token_s: float | None = None  # the model's first text (a held echo shows later)
    tools_s: float | None = None  # the tool steps, until the answer was there
    echo_retry_s: float | None = None  # an answer thrown away for echoing an earlier one
    grounding_check_s: float | None = None  # checking a memory answer's names and numbers (turn/replies.py)
    grounding_retry_s: float | None = None  # asking a memory answer again after the check failed
    first_token_s: float | None = None  # the first text the user saw
    generation_s: float | None = None  # generating the answer
    answer_s: float | None = None  # the whole answer


@dataclass(frozen=True)
class MemoryTimings(_Seconds):
    """How long the memory work after a turn took, step by step (seconds)."""

    memory_start_after_first_token_s: float | None = None  # from the answer's first token to the work's start
    store_s: float | None = None  # storing the exchange as turn memories
    distill_s: float | None = None  # distilling and saving facts
    summary_s: float | None = None  # folding older dialogue into the summary


@dataclass(frozen=True)
class MemoryWork:
    """What the memory work after a turn did: the facts saved, the candidates rejected (text,
    reason), its timings, and the error that stopped it, if one did."""

    saved: tuple[SaveOutcome, ...] = ()
    rejected: tuple[tuple[str, str], ...] = ()
    timings: MemoryTimings = MemoryTimings()
    error: str | None = None


NO_MEMORY_WORK = MemoryWork()  # memory off, or incognito: nothing was done


@dataclass(frozen=True)
class ToolTrace:
    """How tools took part in a turn: the router's route (none, direct or model) and why, and
    when calls were made, the model steps, why the steps stopped, how many calls were filled
    in by rule rather than written by the model, and how the answer was checked
    (turn/tool_answer.py)."""

    route: str
    reason: str = ""
    steps: int = 0
    stop: str = ""
    rule_calls: int = 0
    check: str = ""  # how the answer was reached: direct, accepted, retried, templated, failed, asked
    rejected: tuple[str, ...] = ()  # the unsupported values of rejected drafts, as written

    def to_dict(self) -> dict[str, Any]:
        return {"route": self.route, "reason": self.reason, "steps": self.steps, "stop": self.stop,
                "rule_calls": self.rule_calls, "check": self.check, "rejected": list(self.rejected)}


@dataclass(frozen=True)
class TurnResult:
    """One answered turn, final when `respond` returns it; `memory` is the memory work still
    running (None when memory is off or incognito)."""

    session: str
    turn_index: int
    message: str
    answer: str = ""
    interrupted: bool = False
    recalled: tuple[RecallHit, ...] = ()
    prompt: ComposedPrompt | None = None
    prompt_text: str = ""
    tokens: TokenCounts = TokenCounts()
    timings: TurnTimings = TurnTimings()
    notices: tuple[str, ...] = ()
    tool_calls: tuple[ToolCall, ...] = ()  # every step that ran a tool or asked the user, in order
    asked_user: bool = False  # the answer is a question to the user (ask and batch end the turn there)
    tools: ToolTrace | None = None  # None when tools are off
    memory: Future[MemoryWork] | None = field(default=None, repr=False, compare=False)
    first_token_at: float = field(default=0.0, repr=False)  # perf_counter clock
    date: str = ""  # when the turn was said, YYYY-MM-DDTHH:MM (the agent's today)
    reply_route: str = ""  # how the reply was made, when not simply by the model (turn/replies.py)
    outcome: Outcome | None = None  # what the answer is worth (`outcome_of`); None when nothing was asked

    def memory_work(self, timeout: float | None = None) -> MemoryWork:
        """The memory work after this turn, once done (waits up to `timeout` seconds, then
        raises TimeoutError)."""
        return NO_MEMORY_WORK if self.memory is None else self.memory.result(timeout)


@dataclass
class WorkInProgress:
    """MemoryWork while it is being done (by the agent's worker thread only)."""

    saved: list[SaveOutcome] = field(default_factory=list)
    rejected: list[tuple[str, str]] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)  # MemoryTimings' fields, as measured
    error: str | None = None

    def finish(self) -> MemoryWork:
        return MemoryWork(tuple(self.saved), tuple(self.rejected), MemoryTimings.measured(self.timings), self.error)
