"""One turn of the assistant: recall, compose, generate (streamed), store, distill, summarize.

Every dependency is passed in. The answer streams first; storing the turn, distillation and
the rolling summary run afterwards in a background thread, while the user reads and types.
The next turn waits for that work rather than competing with it for the CPU.
"""

from __future__ import annotations

import datetime as dt
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .backends.base import Backend
from .memory.index.render import prompt_text
from .memory.sessions import Session, SessionStore, Turn
from .prompt import DEFAULT_SYSTEM, Budget, ComposedPrompt, compose
from .types import GenerationSettings, MemoryRecord, Provenance, RecallHit

if TYPE_CHECKING:  # heavy modules are only needed when memory is on
    from .memory.distill import Distiller
    from .memory.distill.saving import SaveOutcome
    from .memory.store import MemoryStore
    from .memory.summary import Summarizer

log = logging.getLogger(__name__)
FORGOTTEN_NOTICE = "everything was forgotten (`memory forget --all`) while this chat was open: starting afresh"


@dataclass
class TurnResult:
    session: str
    turn_index: int
    message: str
    answer: str = ""
    interrupted: bool = False
    recalled: list[RecallHit] = field(default_factory=list)
    saved: list["SaveOutcome"] = field(default_factory=list)
    rejected: list[tuple[str, str]] = field(default_factory=list)
    prompt: ComposedPrompt | None = None
    prompt_text: str = ""
    tokens: dict[str, int] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    notices: list[str] = field(default_factory=list)
    background_error: str | None = None
    first_token_at: float = field(default=0.0, repr=False)  # perf_counter clock


@dataclass
class MemoryParts:
    """What memory needs; absent (None) in a memory-less agent."""

    store: "MemoryStore"
    distiller: "Distiller | None" = None
    summarizer: "Summarizer | None" = None


@dataclass
class AgentOptions:
    recall_k: int = 6
    memory_tokens: int = 160
    summary_after_exchanges: int = 8
    keep_recent_exchanges: int = 4
    incognito: bool = False
    directive: str = DEFAULT_SYSTEM


def _today() -> str:
    return dt.date.today().isoformat()


class Agent:
    def __init__(
        self,
        backend: Backend,
        sessions: SessionStore,
        session: Session,
        generation: GenerationSettings,
        *,
        memory: MemoryParts | None = None,
        options: AgentOptions | None = None,
        today: Callable[[], str] = _today,
    ) -> None:
        self.backend = backend
        self.sessions = sessions
        self.session = session
        self.generation = generation
        self.memory = memory
        self.options = options or AgentOptions()
        self.today = today
        self.last: TurnResult | None = None
        self._background: threading.Thread | None = None
        self._notices: list[str] = []  # for the next turn's result, from work done in between

    # -- the turn -----------------------------------------------------------------
    def respond(
        self,
        message: str,
        on_token: Callable[[str], None] | None = None,
        generation: GenerationSettings | None = None,
    ) -> TurnResult:
        """Answer `message`, streaming chunks to `on_token`. Ctrl-C during generation stops
        the answer and keeps what was said so far."""
        self.wait()
        if self.sessions.check_forgotten(self.session):
            self._notices.append(FORGOTTEN_NOTICE)
        start = time.perf_counter()
        settings = generation or self.generation
        result = TurnResult(session=self.session.name, turn_index=len(self.session.turns), message=message)
        result.recalled = self._recall(message, result)
        composed = self._compose(message, result.recalled, settings)
        result.prompt, result.notices = composed, [*self._notices, *composed.notices]
        self._notices.clear()
        result.prompt_text = self.backend.format_prompt(composed.messages)
        result.timings["compose_s"] = time.perf_counter() - start - result.timings.get("recall_s", 0.0)
        self._generate(composed.messages, settings, on_token, result, start)
        self._record_dialogue(result)
        self.last = result
        if self.memory and not self.options.incognito:
            self._start_background(result)
        return result

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the previous turn's memory work is done (or `timeout` seconds pass);
        True when nothing is left running."""
        if self._background is not None:
            self._background.join(timeout)
            if self._background.is_alive():
                return False
            self._background = None
        return True

    # -- steps ----------------------------------------------------------------------
    def _recall(self, message: str, result: TurnResult) -> list[RecallHit]:
        if not self.memory or self.options.recall_k <= 0:
            return []
        start = time.perf_counter()
        hits = self.memory.store.recall(message, k=self.options.recall_k + 4)
        hits = [hit for hit in hits if not self._in_window(hit.record)][: self.options.recall_k]
        result.timings["recall_s"] = time.perf_counter() - start
        return hits

    def _in_window(self, record: MemoryRecord) -> bool:
        """A past message already in the visible dialogue need not be recalled again."""
        origin = record.provenance
        return (
            record.kind == "turn"
            and origin.session == self.session.name
            and origin.turn_index is not None
            and origin.turn_index >= self.session.summarized_upto
        )

    def _compose(self, message: str, hits: list[RecallHit], settings: GenerationSettings) -> ComposedPrompt:
        budget = Budget.for_context(self.backend.context_size, settings.max_tokens, self.options.memory_tokens)
        for _ in range(4):
            composed = compose(
                message=message,
                count_tokens=self.backend.count_tokens,
                budget=budget,
                today=self.today(),
                directive=self.options.directive,
                summary=self.session.summary,
                history=[turn.message() for turn in self.session.recent],
                memories=[prompt_text(hit.record) for hit in hits],
                special_tokens=self.backend.special_tokens,
            )
            overshoot = self.backend.count_prompt_tokens(composed.messages) + settings.max_tokens - self.backend.context_size
            if overshoot <= 0:
                return composed
            # The per-section counts miss template tokens: shrink the budget and compose again.
            budget = Budget(total=budget.total - overshoot - 16, memories=budget.memories, summary=budget.summary)
        return composed

    def _generate(self, messages, settings, on_token, result: TurnResult, start: float) -> None:
        generation_start = time.perf_counter()
        chunks: list[str] = []
        stream = self.backend.stream(messages, settings)
        try:
            for chunk in stream:
                if not chunks:
                    result.first_token_at = time.perf_counter()
                    result.timings["first_token_s"] = result.first_token_at - start
                chunks.append(chunk)
                if on_token:
                    on_token(chunk)
        except KeyboardInterrupt:
            stream.close()
            result.interrupted = True
        result.answer = "".join(chunks).strip()
        result.timings["generation_s"] = time.perf_counter() - generation_start
        completion = stream.result()  # finished or closed by now: reads no further
        result.tokens = {"prompt": completion.prompt_tokens, "completion": completion.completion_tokens}
        result.timings["answer_s"] = time.perf_counter() - start

    def _record_dialogue(self, result: TurnResult) -> None:
        private = self.options.incognito  # kept for the live dialogue only, never written
        self.session.turns.append(Turn("user", result.message, private=private))
        self.session.turns.append(Turn("assistant", result.answer, private=private))
        if private:
            return
        if self.sessions.save(self.session):
            result.notices.append(FORGOTTEN_NOTICE)
        result.turn_index = len(self.session.turns) - 2  # other processes' turns may come first

    # -- background memory work ---------------------------------------------------------
    def _start_background(self, result: TurnResult) -> None:
        self._background = threading.Thread(target=self._after_turn, args=(result,), daemon=True)
        self._background.start()

    def _after_turn(self, result: TurnResult) -> None:
        try:
            if result.first_token_at:
                result.timings["memory_start_after_first_token_s"] = time.perf_counter() - result.first_token_at
            self._store_turn(result)
            self._distill(result)
            self._summarize(result)
        except Exception as exc:  # reported on the result as one line; the chat goes on
            log.debug("memory work after the turn failed", exc_info=True)
            result.background_error = f"{type(exc).__name__}: {exc}"

    def _store_turn(self, result: TurnResult) -> None:
        start = time.perf_counter()
        self.memory.store.add(result.message, "turn", provenance=self._provenance(result, role="user"))
        result.timings["store_s"] = time.perf_counter() - start

    def _provenance(self, result: TurnResult, role: str) -> Provenance:
        return Provenance(session=result.session, turn_index=result.turn_index, role=role,
                          source_text=result.message, date=self.today())

    def _distill(self, result: TurnResult) -> None:
        distiller = self.memory.distiller
        if distiller is None:
            return
        from .memory.distill.saving import save_fact

        start = time.perf_counter()
        judged = distiller.distill(result.message)
        result.rejected = list(judged.rejected)
        for candidate in judged.candidates:
            decision = {"route": candidate.route, "raw_json": judged.raw_json, "valid_json": judged.valid_json}
            outcome = save_fact(
                self.memory.store, candidate, provenance=self._provenance(result, role="user"), decision=decision
            )
            result.saved.append(outcome)
        result.timings["distill_s"] = time.perf_counter() - start

    def _summarize(self, result: TurnResult) -> None:
        summarizer = self.memory.summarizer
        session = self.session
        if summarizer is None or session.exchanges_since_summary() <= self.options.summary_after_exchanges:
            return
        start = time.perf_counter()
        keep_from = self._keep_from(session)
        folded = [turn.message() for turn in session.turns[session.summarized_upto : keep_from] if not turn.private]
        session.summary = summarizer.fold(session.summary, folded)
        session.summarized_upto = keep_from
        if self.sessions.save(session):
            self._notices.append(FORGOTTEN_NOTICE)
        result.timings["summary_s"] = time.perf_counter() - start

    def _keep_from(self, session: Session) -> int:
        """Index of the first turn that stays verbatim: the last N exchanges."""
        users_seen = 0
        for index in range(len(session.turns) - 1, session.summarized_upto - 1, -1):
            if session.turns[index].role == "user":
                users_seen += 1
                if users_seen == self.options.keep_recent_exchanges:
                    return index
        return session.summarized_upto

    # -- commands used by chat ------------------------------------------------------------
    def remember(self, text: str) -> MemoryRecord:
        """Store `text` as a fact the user stated explicitly (/remember)."""
        if not self.memory:
            raise RuntimeError("memory is off")
        provenance = Provenance(session=self.session.name, source_text=text, date=self.today(), role="user")
        return self.memory.store.add(text, "fact", provenance=provenance, decision={"route": "user"})

    def switch_session(self, session: Session) -> None:
        self.wait()
        self.session = session

    def clear(self) -> None:
        """Start the dialogue afresh (the session keeps its file; long-term memory stays)."""
        self.wait()
        self.session.summary = ""
        self.session.summarized_upto = len(self.session.turns)
