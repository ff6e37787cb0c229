"""What a turn gives back: its final result, and the memory work done after the answer."""

from __future__ import annotations

from collections.abc import Mapping
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..prompt import ComposedPrompt
from ..types import RecallHit

if TYPE_CHECKING:
    from ..memory.distill.saving import SaveOutcome
    from ..tools.loop import ToolCall


@dataclass(frozen=True)
class MemoryWork:
    """What the memory work after a turn did: the facts saved, the candidates rejected (text,
    reason), its timings (seconds), and the error that stopped it, if one did."""

    saved: tuple[SaveOutcome, ...] = ()
    rejected: tuple[tuple[str, str], ...] = ()
    timings: Mapping[str, float] = field(default_factory=dict)
    error: str | None = None


NO_MEMORY_WORK = MemoryWork()  # memory off, or incognito: nothing was done


@dataclass(frozen=True)
class ToolTrace:
    """How tools took part in a turn: the router's route (none, direct or model) and why, and
    when calls were made, the model steps, why the steps stopped, and how many calls were
    filled in by rule rather than written by the model."""

    route: str
    reason: str = ""
    steps: int = 0
    stop: str = ""
    rule_calls: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"route": self.route, "reason": self.reason, "steps": self.steps, "stop": self.stop,
                "rule_calls": self.rule_calls}


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
    tokens: Mapping[str, int] = field(default_factory=dict)
    timings: Mapping[str, float] = field(default_factory=dict)
    notices: tuple[str, ...] = ()
    tool_calls: tuple[ToolCall, ...] = ()  # every step that ran a tool or asked the user, in order
    asked_user: bool = False  # the answer is a question to the user (ask and batch end the turn there)
    tools: ToolTrace | None = None  # None when tools are off
    memory: Future[MemoryWork] | None = field(default=None, repr=False, compare=False)
    first_token_at: float = field(default=0.0, repr=False)  # perf_counter clock
    date: str = ""  # when the turn was said, YYYY-MM-DDTHH:MM (the agent's today)

    def memory_work(self, timeout: float | None = None) -> MemoryWork:
        """The memory work after this turn, once done (waits up to `timeout` seconds, then
        raises TimeoutError)."""
        return NO_MEMORY_WORK if self.memory is None else self.memory.result(timeout)


@dataclass
class WorkInProgress:
    """MemoryWork while it is being done (by the agent's worker thread only)."""

    saved: list[SaveOutcome] = field(default_factory=list)
    rejected: list[tuple[str, str]] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    error: str | None = None

    def finish(self) -> MemoryWork:
        return MemoryWork(tuple(self.saved), tuple(self.rejected), dict(self.timings), self.error)
