"""One turn of the assistant: recall, compose, generate (streamed), store, distill, summarize.

Every dependency is passed in. The answer streams first and `respond` returns a result that
nothing changes afterwards. Storing the turn, distillation and the rolling summary run
afterwards on the agent's own worker thread, while the user reads and types; the result holds
a future for that work (`TurnResult.memory_work()` waits for it). The next turn waits for that
work rather than competing with it for the CPU.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import logging
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import wait as wait_for
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from .backends.base import Backend
from .clock import now as clock_now
from .clock import stamp
from .config import Settings
from .memory.index.render import prompt_text
from .memory.passages import passages
from .memory.sessions import Session, SessionStore, Turn
from .prompt import DEFAULT_SYSTEM, Budget, ComposedPrompt, compose
from .turn_result import MemoryWork, TurnResult, WorkInProgress
from .types import GenerationSettings, MemoryDraft, MemoryRecord, Message, Provenance, RecallHit

if TYPE_CHECKING:  # heavy modules are only needed when memory is on
    from .memory.distill import Distiller
    from .memory.store import MemoryStore
    from .memory.summary import Summarizer

log = logging.getLogger(__name__)
FORGOTTEN_NOTICE = "everything was forgotten (`memory forget --all`) while this chat was open: starting afresh"


class _Answer(NamedTuple):
    text: str
    interrupted: bool
    tokens: dict[str, int]
    first_token_at: float


@dataclass
class MemoryParts:
    """What memory needs; absent (None) in a memory-less agent."""

    store: MemoryStore
    distiller: Distiller | None = None
    summarizer: Summarizer | None = None


class Agent:
    """A conversation with one model: `settings` (config.Settings) give its recall, budget,
    summary and generation settings and whether it starts incognito."""

    def __init__(
        self,
        backend: Backend,
        sessions: SessionStore,
        session: Session,
        settings: Settings,
        *,
        memory: MemoryParts | None = None,
        directive: str = DEFAULT_SYSTEM,
        clock: Callable[[], dt.datetime] | None = None,
    ) -> None:
        self.backend = backend
        self.sessions = sessions
        self.session = session
        self.settings = settings
        self.generation = settings.generation()
        self.memory = memory
        self.directive = directive
        self.clock = clock or (lambda: clock_now(settings.today))
        self._moment: dt.datetime | None = None  # a batch line's own date, for its turn
        self.last: TurnResult | None = None
        self._incognito = settings.incognito
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="memory-work")
        self._pending: Future[MemoryWork] | None = None
        self._notices: list[str] = []  # for the next turn's result, from work done in between
        self.digests = False  # chat turns it on: a session left after enough exchanges gets a digest
        self._started: str | None = None  # when this agent's first turn in the session was said

    # -- the turn -----------------------------------------------------------------
    def respond(
        self,
        message: str,
        on_token: Callable[[str], None] | None = None,
        generation: GenerationSettings | None = None,
        today: str | None = None,
    ) -> TurnResult:
        """Answer `message`, streaming chunks to `on_token`. Ctrl-C during generation stops
        the answer and keeps what was said so far. `today` (YYYY-MM-DD[THH:MM]) dates this
        turn instead of the agent's today."""
        self.wait()
        self._moment = clock_now(today) if today else None
        if self.sessions.check_forgotten(self.session):
            self._notices.append(FORGOTTEN_NOTICE)
        start = time.perf_counter()
        settings = generation or self.generation
        timings: dict[str, float] = {}
        recalled = self._recall(message, timings)
        composed = self._compose(message, recalled, settings)
        notices = [*self._notices, *composed.notices]
        self._notices.clear()
        prompt_text = self.backend.format_prompt(composed.messages)
        timings["compose_s"] = time.perf_counter() - start - timings.get("recall_s", 0.0)
        answer = self._generate(composed.messages, settings, on_token, timings, start)
        turn_index = self._record_dialogue(message, answer.text, notices)
        result = TurnResult(
            session=self.session.name, turn_index=turn_index, message=message, answer=answer.text,
            interrupted=answer.interrupted, recalled=tuple(recalled), prompt=composed, prompt_text=prompt_text,
            tokens=answer.tokens, timings=timings, notices=tuple(notices), first_token_at=answer.first_token_at,
            date=stamp(self.now()),
        )
        self._started = self._started or result.date
        self._moment = None
        if self.memory and not self._incognito:
            self._pending = self._worker.submit(self._after_turn, result, self.memory)
            result = dataclasses.replace(result, memory=self._pending)
        self.last = result
        return result

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the previous turn's memory work is done (or `timeout` seconds pass);
        True when nothing is left running."""
        if self._pending is not None:
            if wait_for([self._pending], timeout).not_done:
                return False
            self._pending = None
        return True

    def close(self) -> None:
        """Finish the memory work still running, write the session's digest when it is due,
        and stop the worker thread. Safe to call twice."""
        self.wait()
        self._leave_session()
        self._worker.shutdown(wait=True)

    # -- steps ----------------------------------------------------------------------
    def _recall(self, message: str, timings: dict[str, float]) -> list[RecallHit]:
        if not self.memory or self.settings.recall_k <= 0:
            return []
        start = time.perf_counter()
        hits = self.memory.store.recall(message, k=self.settings.recall_k + 4, today=self.now())
        hits = [hit for hit in hits if not self._in_window(hit.record)][: self.settings.recall_k]
        timings["recall_s"] = time.perf_counter() - start
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
        """Fits the whole templated prompt, counted by the backend, into the context with
        room for the answer."""
        return compose(
            message=message,
            counter=self.backend,
            budget=Budget.for_context(self.backend.context_size, settings.max_tokens, self.settings.memory_tokens),
            today=self.today(),
            directive=self.directive,
            summary=self.session.summary,
            history=[turn.message() for turn in self.session.recent],
            memories=[prompt_text(hit.record) for hit in hits],
            special_tokens=self.backend.special_tokens,
        )

    def _generate(self, messages: Sequence[Message], settings: GenerationSettings,
                  on_token: Callable[[str], None] | None, timings: dict[str, float], start: float) -> _Answer:
        generation_start = time.perf_counter()
        chunks: list[str] = []
        first_token_at = 0.0
        interrupted = False
        stream = self.backend.stream(messages, settings)
        try:
            for chunk in stream:
                if not chunks:
                    first_token_at = time.perf_counter()
                    timings["first_token_s"] = first_token_at - start
                chunks.append(chunk)
                if on_token:
                    on_token(chunk)
        except KeyboardInterrupt:
            stream.close()
            interrupted = True
        timings["generation_s"] = time.perf_counter() - generation_start
        completion = stream.result()  # finished or closed by now: reads no further
        timings["answer_s"] = time.perf_counter() - start
        tokens = {"prompt": completion.prompt_tokens, "completion": completion.completion_tokens}
        return _Answer("".join(chunks).strip(), interrupted, tokens, first_token_at)

    def _record_dialogue(self, message: str, answer: str, notices: list[str]) -> int:
        """Add the exchange to the session (and its file, unless incognito); returns the index
        of the user's message in the session."""
        private = self._incognito  # kept for the live dialogue only, never written
        self.session.turns.append(Turn("user", message, private=private))
        self.session.turns.append(Turn("assistant", answer, private=private))
        if not private and self.sessions.save(self.session):
            notices.append(FORGOTTEN_NOTICE)
        return len(self.session.turns) - 2  # other processes' turns may come first

    # -- memory work after the turn (on the worker thread) --------------------------------
    def _after_turn(self, result: TurnResult, memory: MemoryParts) -> MemoryWork:
        work = WorkInProgress()
        try:
            if result.first_token_at:
                work.timings["memory_start_after_first_token_s"] = time.perf_counter() - result.first_token_at
            self._store_turn(result, memory.store, work)
            self._distill(result, memory, work)
            self._summarize(memory, work)
        except Exception as exc:  # reported on the result as one line; the chat goes on
            log.debug("memory work after the turn failed", exc_info=True)
            work.error = f"{type(exc).__name__}: {exc}"
        return work.finish()

    def _store_turn(self, result: TurnResult, store: MemoryStore, work: WorkInProgress) -> None:
        """The user's message and the answer's passages, as `turn` memories of this exchange
        (both at the user's turn index, so forgetting the message forgets its answer too)."""
        start = time.perf_counter()
        drafts = [MemoryDraft(result.message, "turn", self._provenance(result, role="user"))]
        if not result.interrupted:
            drafts += [MemoryDraft(passage, "turn", self._provenance(result, role="assistant"))
                       for passage in passages(result.answer)]
        store.add_many(drafts)
        work.timings["store_s"] = time.perf_counter() - start

    def _provenance(self, result: TurnResult, role: str) -> Provenance:
        return Provenance(session=result.session, turn_index=result.turn_index, role=role,
                          source_text=result.message, date=result.date or self.today())

    def _distill(self, result: TurnResult, memory: MemoryParts, work: WorkInProgress) -> None:
        distiller = memory.distiller
        if distiller is None:
            return
        from .memory.distill.saving import is_correction, save_fact

        start = time.perf_counter()
        judged = distiller.distill(result.message)
        work.rejected = list(judged.rejected)
        for candidate in judged.candidates:
            decision = {"route": candidate.route, "raw_json": judged.raw_json, "valid_json": judged.valid_json}
            outcome = save_fact(
                memory.store, candidate, provenance=self._provenance(result, role="user"), decision=decision,
                correction=is_correction(result.message),
            )
            work.saved.append(outcome)
        work.timings["distill_s"] = time.perf_counter() - start

    def _summarize(self, memory: MemoryParts, work: WorkInProgress) -> None:
        summarizer = memory.summarizer
        session = self.session
        if summarizer is None or session.exchanges_since_summary() <= self.settings.summary_after_turns:
            return
        start = time.perf_counter()
        keep_from = self._keep_from(session)
        folded = [turn.message() for turn in session.turns[session.summarized_upto : keep_from] if not turn.private]
        session.summary = summarizer.fold(session.summary, folded)
        session.summarized_upto = keep_from
        if self.sessions.save(session):
            self._notices.append(FORGOTTEN_NOTICE)
        self._save_digest(memory, session.summary)
        work.timings["summary_s"] = time.perf_counter() - start

    def _save_digest(self, memory: MemoryParts, summary: str) -> None:
        if self.digests and not self._incognito:
            from .memory.digests import save_digest

            now = stamp(self.now())
            save_digest(memory.store, self.session.name, summary, self._started or now, now)

    def _leave_session(self) -> None:
        """A chat session left with at least MIN_EXCHANGES exchanges: its digest, from the
        summary and the dialogue not yet folded into it."""
        from .memory.digests import MIN_EXCHANGES

        memory, session = self.memory, self.session
        if (not self.digests or memory is None or memory.summarizer is None or self._started is None
                or sum(1 for turn in session.turns if turn.role == "user" and not turn.private) < MIN_EXCHANGES):
            return
        unfolded = [turn.message() for turn in session.turns[session.summarized_upto:] if not turn.private]
        try:
            summary = memory.summarizer.fold(session.summary, unfolded) if unfolded else session.summary
            self._save_digest(memory, summary)
        except Exception:  # a digest is a bonus: leaving the session must not fail for it
            log.debug("the session digest was not written", exc_info=True)
        self._started = None

    def _keep_from(self, session: Session) -> int:
        """Index of the first turn that stays verbatim: the last N exchanges."""
        users_seen = 0
        for index in range(len(session.turns) - 1, session.summarized_upto - 1, -1):
            if session.turns[index].role == "user":
                users_seen += 1
                if users_seen == self.settings.keep_recent_turns:
                    return index
        return session.summarized_upto

    # -- what front ends ask of the agent (each waits for the memory work first) ------------
    def now(self) -> dt.datetime:
        """The moment the agent lives in: this turn's own date, else --today, else the clock."""
        return self._moment or self.clock()

    def today(self) -> str:
        """Today's date, YYYY-MM-DD."""
        return self.now().date().isoformat()

    @property
    def has_memory(self) -> bool:
        return self.memory is not None

    @property
    def incognito(self) -> bool:
        """Whether turns are kept off every file (memory is still read)."""
        return self._incognito

    def set_incognito(self, on: bool) -> None:
        self._incognito = on

    def warm_up(self) -> None:
        """Load the embedding model in the background (e.g. while the user types)."""
        if self.memory is not None:
            threading.Thread(target=self.memory.store.embedder.warm_up, daemon=True).start()

    def facts(self) -> list[MemoryRecord]:
        """The facts remembered about the user."""
        return self._store().records(kind="fact")

    def remember(self, text: str) -> MemoryRecord:
        """Store `text` as a fact the user stated explicitly (/remember)."""
        store = self._store()
        provenance = Provenance(session=self.session.name, source_text=text, date=stamp(self.now()), role="user")
        return store.add(text, "fact", provenance=provenance, decision={"route": "user"})

    def forget(self, ident: str) -> MemoryRecord:
        """Forget the memory `ident` (an id or a unique prefix); returns what was forgotten."""
        return self._store().forget(ident)

    def use_session(self, name: str) -> None:
        """Go on in the session called `name` (loaded, or created when new)."""
        if name != self.session.name:
            self.wait()
            self._leave_session()
            self.session = self.sessions.load_or_create(name)

    def clear(self) -> None:
        """Start the dialogue afresh (the session keeps its file; long-term memory stays)."""
        self.wait()
        self.session.summary = ""
        self.session.summarized_upto = len(self.session.turns)

    def _store(self) -> MemoryStore:
        """The memory store, once the memory work still running is done."""
        if not self.memory:
            raise RuntimeError("memory is off")
        self.wait()
        return self.memory.store
