"""One turn of the assistant: recall, compose, generate (streamed), store, distill, summarize.
With tools on, the router decides first whether the turn needs a tool (tool_turn.py).

Every dependency is passed in. The answer streams first and `respond` returns a result that nothing
changes afterwards. Storing the turn, distillation and the rolling summary run afterwards on the
agent's own worker thread, while the user reads and types; the result holds a future for that work
(`TurnResult.memory_work()` waits for it). The next turn waits for it rather than competing for the CPU.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import logging
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures import wait as wait_for
from typing import TYPE_CHECKING, Any

from ..backends.base import Backend
from ..config import Settings
from ..dates.clock import now as clock_now
from ..dates.clock import stamp
from ..memory.index.render import prompt_text as render_memory  # `prompt_text` in respond is the templated prompt
from ..memory.sessions import Session, SessionStore, Turn
from ..process.background import Background
from ..prompt import DEFAULT_SYSTEM, Budget, ComposedPrompt, compose
from ..reading import Reading, read
from ..reading.dates import DateSpan
from ..types import GenerationSettings, MemoryRecord, Message, RecallHit
from .answering import Answer
from .exchange_recall import with_users_words
from .kind_recall import with_kind_records
from .latest import latest_first
from .memory_answers import earlier_answers
from .memory_work import MemoryParts, Wanted, always, distill_turn, fold_summary, store_turn, withdraw
from .recap import live_items, period_items, recap_text
from .replies import Replier, ReplyPlan, plan_reply, user_names
from .result import MemoryWork, ToolTrace, TurnResult, TurnTimings, WorkInProgress, outcome_of
from .when_answer import told_shown

if TYPE_CHECKING:  # heavy modules are only needed when memory (or tools) are on
    from ..tools.loop import AskUser
    from ..tools.router import Route
    from .tool_turn import Callbacks, OnCall, ToolOutcome, ToolTurn

log = logging.getLogger(__name__)
# Whether a recalled memory is already in the dialogue the model sees (then it is not recalled
# again): by default a past message of the session not yet folded into its summary; the server
# passes its own rule, as its client sends the dialogue.
WindowRule = Callable[[MemoryRecord], bool]
FORGOTTEN_NOTICE = "everything was forgotten (`memory forget --all`) while this chat was open: starting afresh"


def _nothing() -> None:
    """A job that marks a place in a worker's queue."""


class Agent:
    """A conversation with one model: `settings` (config.Settings) give its recall, budget,
    summary and generation settings and whether it starts incognito. `clock` is its today
    (default: --today, else the clock); `in_window` the rule for what is already in the
    visible dialogue (WindowRule)."""

    def __init__(
        self, backend: Backend, sessions: SessionStore, session: Session, settings: Settings, *,
        memory: MemoryParts | None = None,
        directive: str = DEFAULT_SYSTEM,
        clock: Callable[[], dt.datetime] | None = None,
        in_window: WindowRule | None = None,
        memory_worker: Background | None = None,
        examples: Sequence[Message] = (),
    ) -> None:
        self.backend = backend
        self.sessions = sessions
        self.session = session
        self.settings = settings
        self.generation = settings.generation()
        self.memory = memory
        self.directive = directive
        self.examples = tuple(examples)  # few-shot exchanges after the system message (app: prompt.DEFAULT_EXAMPLES)
        self.clock = clock or (lambda: clock_now(settings.today))
        self._in_window = in_window or self._in_session_window
        self._moment: dt.datetime | None = None  # a batch line's own date, for its turn
        self.last: TurnResult | None = None
        self.tool_turn: ToolTurn | None = None  # set by use_tools
        self._incognito = settings.incognito
        # A thread only while there is work (background.py). `memory_worker` is shared by the
        # agents of one memory namespace (the server's requests): their memory work runs in the
        # order their answers ended, and a turn begins once the work of every answer that
        # ended before it is done, so it recalls what those answers stored.
        self._shared_worker = memory_worker is not None
        self._worker = memory_worker or Background("memory-work")
        self._pending: list[Future[Any]] = []  # worker-thread work the next turn waits for
        self._closing = threading.Event()  # stops reading ahead when the chat ends
        self._notices: list[str] = []  # for the next turn's result, from work done in between
        self.digests = False  # chat turns it on: a session left after enough exchanges gets a digest
        self._started: str | None = None  # when this agent's first turn in the session was said
        self.replies_by_program = True  # False: the model says every reply (turn/replies.py; evaluations)

    # -- the turn -----------------------------------------------------------------
    def respond(
        self,
        message: str,
        on_token: Callable[[str], None] | None = None,
        generation: GenerationSettings | None = None,
        today: str | None = None,
        *,
        ask: AskUser | None = None,
        on_call: OnCall | None = None,
        wanted: Wanted = always,
    ) -> TurnResult:
        """Answer `message`, streaming chunks to `on_token`. Ctrl-C during generation stops
        the answer and keeps what was said so far. `today` (YYYY-MM-DD[THH:MM]) dates this
        turn instead of the agent's today. With tools on, `on_call` sees each tool call, and
        `ask` (a chat's) puts the model's clarifying question to the user; without it the
        question ends the turn. The memory work asks `wanted()` before each write: once it is
        False it writes no more and forgets what it wrote of this turn (a server's client
        that left before it had the whole answer)."""
        self._begin(today)
        start, settings = time.perf_counter(), generation or self.generation
        timings: dict[str, float] = {}
        reading = read(message, self.now())  # the one reading of the message this turn
        span = reading.recap if self.replies_by_program else None
        recalled = self._recall(reading, timings) if span is None else []
        route = self.tool_turn.route(reading) if self.tool_turn is not None and span is None else None
        plan = (plan_reply(reading, [render_memory(hit.record) for hit in recalled])
                if self.replies_by_program and span is None else ReplyPlan("open"))
        composed = self._compose(message, recalled, settings, route,
                                 examples=plan.kind in ("statement", "courtesy", "open", "calculation"))
        notices = [*self._notices, *composed.notices]
        self._notices.clear()
        prompt_text = self.backend.format_prompt(composed.messages)
        timings["compose_s"] = time.perf_counter() - start - timings.get("recall_s", 0.0)
        answer, reply_route = self._answer(reading, span, route, plan, composed, settings,
                                           (on_token, ask, on_call), timings, start, recalled)
        tools = answer.tools
        notices += tools.notices if tools else ()
        turn_index = self._record_dialogue(message, answer.text, notices, tools)
        result = TurnResult(
            session=self.session.name, turn_index=turn_index, message=message, answer=answer.text,
            interrupted=answer.interrupted, recalled=tuple(recalled), prompt=composed, prompt_text=prompt_text,
            tokens=answer.tokens, timings=TurnTimings.measured(timings), notices=tuple(notices),
            first_token_at=answer.first_token_at, date=stamp(self.now()),
            tool_calls=tools.calls if tools else (), asked_user=bool(tools and tools.asked_user),
            tools=tools.trace if tools else (ToolTrace(route.kind, route.reason) if route else None),
            reply_route=reply_route, outcome=outcome_of(reading.asks or reading.past is not None, reply_route,
                                                        answer.text, tools.outcome if tools else plan.outcome))
        return self._after_answer(result, reading, wanted)

    def _answer(self, reading: Reading, span: DateSpan | None, route: Route | None, plan: ReplyPlan,
                composed: ComposedPrompt, settings: GenerationSettings, callbacks: Callbacks,
                timings: dict[str, float], start: float, recalled: Sequence[RecallHit]) -> tuple[Answer, str]:
        """The answer, and how it was made: a recap, a reply by plan (replies.py), or tools."""
        if self.tool_turn is not None and route is not None and route.kind != "none" and span is None:
            return self.tool_turn.answer(route, composed.messages, reading, callbacks, timings, start), ""
        replier = Replier(self.backend, composed.messages, settings, callbacks[0], timings, start,
                          earlier=earlier_answers(self.session.recent, reading.text), sources=self._sources(composed),
                          memories=composed.memories_used, today=self.now(), told=told_shown(recalled, composed))
        if span is not None:
            return replier.said(self._recap(span)), "recap"
        return replier.reply(plan, reading, user_names(composed.memories_used, reading.introduced_name))

    def _after_answer(self, result: TurnResult, reading: Reading, wanted: Wanted) -> TurnResult:
        """The turn's result, with its memory work queued (unless memory is off or incognito)."""
        self._started = self._started or result.date
        self._moment = None
        if self.memory and not self._incognito:
            memory_work = self._worker.submit(self._after_turn, result, self.memory, wanted, reading)
            self._pending.append(memory_work)
            result = dataclasses.replace(result, memory=memory_work)
        self.last = result
        return result

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the previous turn's memory work (and reading ahead) is done, or `timeout`
        seconds pass; True when nothing is left running."""
        if self._pending and wait_for(self._pending, timeout).not_done:
            return False
        self._pending.clear()
        if self._shared_worker:  # the work queued so far, not what others queue meanwhile
            try:
                self._worker.submit(_nothing).result(timeout)
            except FutureTimeout:
                return False
        else:
            self._worker.settle()  # its thread gone before the model runs here again
        return True

    def prepare_next_turn(self) -> None:
        """Let the model read the dialogue so far while the user types, after the memory work
        (which may use the model and so its cache): the next turn then evaluates only the
        recalled memories and the new message. For chats; a one-shot `ask` gains nothing."""
        self._pending.append(self._worker.submit(self._read_ahead))

    def close(self) -> None:
        """Finish the memory work still running, write the session's digest when it is due,
        and stop the worker thread. Safe to call twice."""
        self._closing.set()
        self.wait()
        self._leave_session()
        if not self._shared_worker:  # a shared one lives as long as its namespace
            self._worker.shutdown()

    # -- steps ----------------------------------------------------------------------
    def _begin(self, today: str | None) -> None:
        """The previous turn's memory work done, this turn's moment set, a forget --all noticed."""
        self.wait()
        self._moment = clock_now(today) if today else None
        if self.sessions.check_forgotten(self.session):
            self._notices.append(FORGOTTEN_NOTICE)

    def _read_ahead(self) -> None:
        """The next prompt's opening (system message and the dialogue that fits with a short
        message) into the model's cache; a failure only costs the next turn that time."""
        try:
            composed = self._compose("", [], self.generation)
            self.backend.prepare(composed.messages[:-1], self._closing.is_set)
        except Exception:
            log.debug("reading the dialogue ahead failed", exc_info=True)

    def _recall(self, reading: Reading, timings: dict[str, float]) -> list[RecallHit]:
        if not self.memory or self.settings.recall_k <= 0 or reading.small_talk:
            return []
        start = time.perf_counter()
        hits = with_users_words(reading, self.memory.store.recall(reading.text, k=self.settings.recall_k + 4,
                                                                  today=self.now()), self.memory.store.records)
        hits = latest_first(reading.text, [h for h in hits if not self._in_window(h.record)])[: self.settings.recall_k]
        hits = with_kind_records(reading, hits, self.memory.store.records, self.settings.recall_k)  # "my job?"
        timings["recall_s"] = time.perf_counter() - start
        return hits

    def _in_session_window(self, record: MemoryRecord) -> bool:
        """The window rule of a session: a past message of this session not yet folded into
        its summary is in the visible dialogue."""
        origin = record.provenance
        return (
            record.kind == "turn"
            and origin.session == self.session.name
            and origin.turn_index is not None
            and origin.turn_index >= self.session.summarized_upto
        )

    def _compose(self, message: str, hits: list[RecallHit], settings: GenerationSettings,
                 route: Route | None = None, *, examples: bool = True) -> ComposedPrompt:
        """Fits the whole templated prompt, counted by the backend, into the context with
        room for the answer (for the tool steps, on a model route). The few-shot `examples`
        go with replies to statements and everyday messages, not with answers from memory."""
        directive, room = self.directive, settings.max_tokens
        if route is not None and route.kind == "model" and self.tool_turn is not None:
            directive, room = self.tool_turn.directive(directive, route), self.tool_turn.reserve(route)
        return compose(
            message=message,
            counter=self.backend,
            budget=Budget.for_context(self.backend.context_size, room, self.settings.memory_tokens),
            today=self.today(),
            directive=directive,
            summary=self.session.summary,
            history=[turn.message() for turn in self.session.recent],
            memories=[render_memory(hit.record) for hit in hits],
            special_tokens=self.backend.special_tokens,
            examples=self.examples if examples else (),
        )

    def _sources(self, composed: ComposedPrompt) -> list[str]:
        """What an answer may draw on: the system message (today, the summary), the dialogue, the
        memories and the message; not the few-shot examples, which are the program's own."""
        return [m.content for m in composed.messages if m not in self.examples]

    def _recap(self, span: DateSpan) -> str:
        """What was said in `span`, from memory's turns and digests and the current session's
        messages that memory does not hold (recap.py)."""
        records = self.memory.store.records() if self.memory else []
        unkept = [turn.content for turn in self.session.turns
                  if turn.role == "user" and (turn.private or self.memory is None)]
        moment = self.now().replace(tzinfo=None)
        return recap_text(period_items(records, span, live_items(unkept, self.session.name, moment)), span)

    def _record_dialogue(self, message: str, answer: str, notices: list[str], tools: ToolOutcome | None = None) -> int:
        """Add the exchange to the session (and its file, unless incognito), the answer with
        the tool calls that made it; returns the index of the user's message in the session."""
        private = self._incognito  # kept for the live dialogue only, never written
        calls = [call.to_dict() for call in tools.calls] if tools is not None else None
        self.session.turns.append(Turn("user", message, private=private))
        self.session.turns.append(Turn("assistant", answer, private=private, tool_calls=calls))
        if not private and self.sessions.save(self.session):
            notices.append(FORGOTTEN_NOTICE)
        return len(self.session.turns) - 2  # other processes' turns may come first

    # -- memory work after the turn (on the worker thread) --------------------------------
    def _after_turn(self, result: TurnResult, memory: MemoryParts, wanted: Wanted,
                    reading: Reading | None = None) -> MemoryWork:
        work = WorkInProgress()
        try:
            if result.first_token_at:
                work.timings["memory_start_after_first_token_s"] = time.perf_counter() - result.first_token_at
            if not wanted():
                return work.finish()
            stored = store_turn(result, memory.store, work, self.today())
            distill_turn(result, memory, work, self.today(), wanted, reading)
            if not wanted():
                withdraw(memory.store, stored, work)
                return work.finish()
            self._summarize(memory, work)
        except Exception as exc:  # reported on the result as one line; the chat goes on
            log.debug("memory work after the turn failed", exc_info=True)
            work.error = f"{type(exc).__name__}: {exc}"
        return work.finish()

    def _summarize(self, memory: MemoryParts, work: WorkInProgress) -> None:
        summarizer = memory.summarizer
        session = self.session
        if summarizer is None or session.exchanges_since_summary() <= self.settings.summary_after_turns:
            return
        start = time.perf_counter()
        fold_summary(session, summarizer, self.settings.keep_recent_turns)
        if self.sessions.save(session):
            self._notices.append(FORGOTTEN_NOTICE)
        self._save_digest(memory, session.summary)
        work.timings["summary_s"] = time.perf_counter() - start

    def _save_digest(self, memory: MemoryParts, summary: str) -> None:
        if self.digests and not self._incognito:
            from ..memory.digests import save_digest

            now = stamp(self.now())
            save_digest(memory.store, self.session.name, summary, self._started or now, now)

    def _leave_session(self) -> None:
        """A chat session left with at least MIN_EXCHANGES exchanges: its digest, from the
        summary and the dialogue not yet folded into it."""
        from ..memory.digests import MIN_EXCHANGES

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

    # -- tools ------------------------------------------------------------------------------
    def use_tools(self, tool_turn: ToolTurn | None) -> None:
        self.tool_turn = tool_turn  # None: tools off

    @property
    def approving(self) -> bool:
        """Whether each tool call is put to the user first."""
        return self.tool_turn is not None and self.tool_turn.approving

    def set_approving(self, on: bool) -> None:
        if self.tool_turn is not None:
            self.tool_turn.approving = on

    def recall_texts(self, query: str, k: int) -> list[str]:
        """What memory recalls for `query`, as the prompt shows it (the memory_search tool)."""
        if not self.memory:
            return []
        return [render_memory(hit.record) for hit in self.memory.store.recall(query, k=k)]

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
