"""The adapter: the one module of the server that calls the agent, the app wiring and memory.

Everything the server needs from the rest of local-agent goes through `Engine`, in plain data
(turns.py) and dicts, so a change to the agent's shape is an edit here only. What it uses:

- `app.build_runtime(settings, system=, memory=, status=, backend_factory=)` -> Runtime, whose
  named fields own what requests share: `backend` and `choice` (the chat model), `embedder`,
  `memory` (the default namespace's store, the distiller and summarizer), `warm_up`, `close`;
  `app.load_session`, `app.make_tool_turn`; `turn.record.turn_json` (the warm ask's record);
- `agent.Agent(backend, sessions, session, settings, memory=, directive=, in_window=)`,
  `.respond(message, on_token=, generation=)` -> TurnResult (`.memory_work()` waits for the
  memory work), `.set_incognito`, `.close()`; `MemoryParts`;
- `memory.service.MemoryService` for the memory routes (one per namespace, dated by --today);
- `memory.sessions.Session/Turn/SessionStore`, `memory.store.datadir.claim_data_dir`,
  `MemoryStore.open/close` for the named namespaces;
- `config.with_overrides` for a warm `ask`'s own settings.

Every method except `info` runs on the worker's threads (worker.py): one at a time, or with
`serve --parallel N` up to N at once on a model that decodes them together. Then what is shared
is kept safe here: each memory namespace has one memory-work thread (`Background`, shared by
its requests' agents), so its memory work runs in the order the answers ended and a request
recalls what every answer that ended before it stored; the memory routes' writes go through
it too; a namespace's store is not closed while a request uses it.
"""

from __future__ import annotations

import contextlib
import hashlib
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, TypeVar, cast

import numpy as np

from ..app import BackendFactory, Runtime, build_runtime, load_session, make_tool_turn, parallel_factory, settings_clock
from ..backends import create_backend
from ..config import Settings, with_overrides
from ..errors import InputError, NotFoundError, StoreError
from ..memory.service import MemoryService
from ..memory.sessions import Session, SessionStore, Turn
from ..memory.store.datadir import claim_data_dir
from ..process.background import Background
from ..prompt import DEFAULT_EXAMPLES, DEFAULT_SYSTEM
from ..turn.agent import Agent, MemoryParts, WindowRule
from ..turn.record import recalled_json, saved_json, turn_json
from ..turn.result import TurnResult
from ..types import MemoryRecord
from .client_turn import attach, with_reply
from .discovery import CALL_SETTINGS
from .fitting import check_fits
from .namespaces import namespace_dir
from .tool_calls import Structured
from .turns import AskTurn, ChatOutcome, ChatTurn

if TYPE_CHECKING:
    from ..backends.probe import BackendChoice
    from ..conversations.chat_history import HistoryImport
    from ..conversations.chat_import import ImportedMessage
    from ..memory.service import Cleared
    from ..memory.store import MemoryStore

T = TypeVar("T")
OnToken = Callable[[str], bool]  # False: the client has gone, stop
MAX_OPEN_NAMESPACES = 8  # stores of named namespaces kept open (least recently used closes, unless in use)
EMBEDDING_MODEL = "all-MiniLM-L6-v2"
API = "api"  # what the memory routes write: the `via` of a remembered fact's provenance


class Disconnected(KeyboardInterrupt):
    """The client left mid-answer. The agent stops an answer on KeyboardInterrupt (Ctrl-C in
    the CLI) and keeps what was written: the same path stops a generation here."""


@dataclass(frozen=True)
class EngineInfo:
    model: str  # the served model's name, the id in /v1/models
    aliases: tuple[str, ...]  # other names a request may use for it (the --model value)
    backend: str
    device: str
    context_size: int
    embedding_model: str
    embedding_aliases: tuple[str, ...]
    created: int


class _NoSessionFiles:
    """The session store of an API request: the client owns the dialogue and sends it each
    time, so nothing is written to sessions/ (and `forget --all` has nothing to drop)."""

    def check_forgotten(self, session: Session, **_: Any) -> bool:
        return False

    def save(self, session: Session) -> bool:
        return False


def client_window(turn: ChatTurn) -> WindowRule:
    """The window rule of a request: the visible dialogue is the client's message list, so a
    recalled past message is left out when the client sent the same text in this request."""
    visible = {_plain(text) for role, text in turn.history if role == "user"}

    def in_window(record: MemoryRecord) -> bool:
        return record.kind == "turn" and _plain(record.text) in visible
    return in_window


def _plain(text: str) -> str:
    return " ".join(text.split())


def conversation_name(turn: ChatTurn) -> str:
    """A stable name for the client's conversation (its first user message, hashed): turns of
    one conversation are indexed together, as a CLI session's are."""
    first = next((text for role, text in turn.history if role == "user"), turn.message)
    digest = hashlib.sha256(f"{turn.namespace or ''}\0{first}".encode()).hexdigest()[:16]
    return f"api-{digest}"


def _relay(agent: Agent, on_token: OnToken, *, keep_on_disconnect: bool) -> Callable[[str], None]:
    def relay(chunk: str) -> None:
        if not on_token(chunk):
            if not keep_on_disconnect:
                agent.set_incognito(True)  # the client never got the answer: remember nothing
            raise Disconnected()
    return relay


def record_dict(record: MemoryRecord) -> dict[str, Any]:
    return {"id": record.id, "object": "memory", "kind": record.kind, "text": record.text,
            "created": record.created, "updated": record.updated,
            "key": list(record.key) if record.key else None}


def _outcome(result: TurnResult, max_tokens: int) -> ChatOutcome:
    """The turn as the routes see it, once its memory work is done."""
    work = result.memory_work()
    completion = result.tokens.completion
    return ChatOutcome(
        answer=result.answer, finish_reason="length" if completion >= max_tokens else "stop",
        prompt_tokens=result.tokens.prompt, completion_tokens=completion,
        recalled=recalled_json(result.recalled), saved=saved_json(work.saved),
        memory_error=work.error, cancelled=result.interrupted,
        tool_calls=[call.to_dict() for call in result.tool_calls], notices=list(result.notices),
    )


def _without_saved_states(factory: BackendFactory) -> BackendFactory:
    """The server's models save no llama.cpp state of a first prompt (llama_state.py): a
    resident process gains nothing from one, and a request's prompt may hold a namespace's
    memories, which must not land in the default data dir's cache. The backends read
    `incognito` for that alone."""
    def load(settings: Settings, *, model: str | None = None) -> Any:
        return factory(replace(settings, incognito=True), model=model)
    return load


class Engine:
    """The loaded model and the memory of each namespace."""

    def __init__(self, settings: Settings, *, memory: bool = True, system: str | None = None,
                 status: Callable[[str], None] = lambda _: None,
                 backend_factory: BackendFactory = create_backend) -> None:
        self.settings = settings
        self.memory_on = memory
        self.default_system = system
        self.info: EngineInfo | None = None
        self._status = status
        self._backend_factory = backend_factory
        self._runtime: Runtime | None = None
        self._stores: OrderedDict[str, MemoryStore] = OrderedDict()  # named namespaces
        self._users: dict[str | None, int] = {}  # requests using each namespace now
        self._workers: dict[str | None, Background] = {}  # each namespace's memory work
        self._lock = threading.RLock()  # the three above

    # -- life ------------------------------------------------------------------------------
    def load(self, parallel: int = 1) -> EngineInfo:
        """Load the model (decoding `parallel` conversations at once where it can) and memory."""
        factory = parallel_factory(_without_saved_states(self._backend_factory), parallel)
        runtime = build_runtime(self.settings, system=self.default_system, memory=self.memory_on,
                                status=self._status, backend_factory=factory)
        self._runtime = runtime
        runtime.warm_up(background=False)  # with memory on: the first request should not wait for it
        backend = runtime.backend
        self.info = EngineInfo(
            model=backend.model_name, aliases=(self.settings.model,), backend=runtime.choice.backend,
            device=runtime.choice.device, context_size=backend.context_size,
            embedding_model=EMBEDDING_MODEL, embedding_aliases=(f"sentence-transformers/{EMBEDDING_MODEL}",),
            created=int(time.time()),
        )
        return self.info

    @property
    def concurrent(self) -> bool:
        """Whether the loaded model takes requests from several threads at once."""
        return self._runtime is not None and self._runtime.backend.concurrent

    def close(self) -> None:
        for worker in self._workers.values():
            worker.shutdown()
        for store in self._stores.values():
            store.close()
        self._stores.clear()
        if self._runtime is not None:
            self._runtime.close()
            self._runtime = None

    # -- turns -----------------------------------------------------------------------------
    def chat(self, turn: ChatTurn, on_token: OnToken, left: Callable[[], bool] = lambda: False) -> ChatOutcome:
        """Answer the client's dialogue; recall for, store and distill only its last message.
        Returns when the turn's memory work is done. Once `left()` (the client has gone before
        it had the whole response) the memory work writes nothing more and takes back what it
        wrote: the client never saw the answer."""
        runtime = self._loaded()
        generation = self.settings.generation(**turn.generation)
        directive = turn.system or self.default_system or DEFAULT_SYSTEM
        check_fits(runtime.backend, turn.message, directive, answer_tokens=generation.max_tokens,
                   memory_tokens=self.settings.memory_tokens)
        session = Session(name=conversation_name(turn), turns=[Turn(role, text) for role, text in turn.history])
        with self._using(turn.namespace):
            agent = Agent(
                runtime.backend, cast(SessionStore, _NoSessionFiles()), session, self.settings,
                memory=self._chat_memory(turn.namespace) if turn.memory and self.memory_on else None,
                directive=directive, in_window=client_window(turn),
                memory_worker=self._memory_worker(turn.namespace),
                examples=DEFAULT_EXAMPLES if turn.shape is None and not turn.continuation else (),
            )
            client = None  # the client's own tools or reply format replace the built-in tools (client_turn.py)
            if turn.shape is not None or turn.continuation:
                client = attach(agent, turn.shape or Structured(), runtime.backend, generation)
            else:
                self._with_tools(agent, self.settings)
            try:
                relay = _relay(agent, on_token, keep_on_disconnect=False)
                result = agent.respond(turn.message, on_token=relay, generation=generation,
                                       wanted=lambda: not left())
                return with_reply(_outcome(result, generation.max_tokens), client)
            finally:
                agent.close()

    def ask(self, turn: AskTurn, on_token: OnToken,
            on_answer: Callable[[dict[str, Any]], None] | None = None) -> tuple[dict[str, Any], str | None]:
        """What `ask` does in-process, on the loaded model: the same session file, memory and
        output record (`turn_json`). Returns (record, memory error) once the memory work
        is done; `on_answer` gets the answer before that, as soon as it is written."""
        runtime = self._loaded()
        unknown = sorted(set(turn.settings) - set(CALL_SETTINGS))
        if unknown:
            raise InputError(f"ask request: unknown settings {', '.join(unknown)}")
        settings = replace(self.settings, **with_overrides(self.settings, turn.settings, "ask request"))
        sessions = SessionStore(claim_data_dir(settings.data_dir))
        agent = Agent(runtime.backend, sessions, load_session(sessions, turn.session), settings,
                      memory=runtime.memory if turn.memory else None, directive=turn.system or DEFAULT_SYSTEM,
                      memory_worker=self._memory_worker(None), examples=DEFAULT_EXAMPLES)
        self._with_tools(agent, settings)
        try:
            result = agent.respond(turn.message, on_token=_relay(agent, on_token, keep_on_disconnect=True))
            if on_answer is not None:
                cut = result.prompt.notices if result.prompt else ()  # the message cut to fit, as in-process
                on_answer({"answer": result.answer, "session": result.session, "interrupted": result.interrupted,
                           "notices": list(cut)})
            return turn_json(result, runtime.choice, runtime.backend.model_name), result.memory_work().error
        finally:
            agent.close()

    def _with_tools(self, agent: Agent, settings: Settings) -> None:
        """The built-in tools (`serve --tools`, which needs an API key), for this request's
        agent: memory search reads the request's own namespace. No call is put to anyone."""
        if settings.tools_on:
            agent.use_tools(make_tool_turn(settings, agent, self._loaded().embedder, approver=None))

    # -- memory REST -------------------------------------------------------------------------
    def memories(self, namespace: str | None, kind: str | None, limit: int) -> list[dict[str, Any]]:
        if not self._exists(namespace):
            return []
        return [record_dict(record) for record in self.memory_service(namespace).newest(kind, limit=limit)]

    def remember(self, namespace: str | None, text: str) -> dict[str, Any]:
        """Store `text` as a fact the user stated (as the chat's /remember does), in turn with
        the namespace's memory work."""
        with self._using(namespace):
            service = self.memory_service(namespace)
            return record_dict(self._in_turn(namespace, lambda: service.remember(text, via=API)).record)

    def search(self, namespace: str | None, query: str, limit: int) -> list[dict[str, Any]]:
        if not self._exists(namespace):
            return []
        hits = self.memory_service(namespace).search(query, limit)
        return [{**record_dict(hit.record), "score": round(hit.score, 4)} for hit in hits]

    def forget(self, namespace: str | None, ident: str) -> dict[str, Any]:
        if not self._exists(namespace):
            raise NotFoundError(f"no memory with id {ident!r}")
        with self._using(namespace):
            service = self.memory_service(namespace)
            return record_dict(self._in_turn(namespace, lambda: service.forget(ident)).record)

    def memory_service(self, namespace: str | None) -> MemoryService:
        """The memory service of a namespace (None: the default one), dated by --today."""
        return MemoryService(self._store(namespace), namespace_dir(self.settings.data_dir, namespace),
                             clock=settings_clock(self.settings))

    def embed(self, texts: list[str]) -> np.ndarray:
        return self._loaded().embedder.embed(texts)

    # -- the page (routes_page*.py) -------------------------------------------------------------
    def choice(self) -> BackendChoice:
        """How the chat model was chosen: backend, device and why."""
        return self._loaded().choice

    def forget_everything(self) -> Cleared:
        """`forget --all` for the owner: every namespace too, whose open stores close first."""
        for store in self._stores.values():
            store.close()
        self._stores.clear()
        return self.memory_service(None).forget_all()

    def plan_chat_import(self, messages: tuple[ImportedMessage, ...], *, digests: bool) -> HistoryImport:
        """An import of past conversations into the owner's memory, to run a session at a
        time: what `memory import-chats` does (conversations/chat_history.py), with the
        distiller's model summarizing each session when `digests`."""
        from ..conversations.chat_history import plan_import

        parts = self._memory()
        return plan_import(parts.store, messages, summarizer=parts.summarizer if digests else None)

    # -- internals ---------------------------------------------------------------------------
    def _loaded(self) -> Runtime:
        if self._runtime is None:
            raise StoreError("the model is not loaded")
        return self._runtime

    def _info(self) -> EngineInfo:
        if self.info is None:
            raise StoreError("the model is not loaded")
        return self.info

    def _memory(self) -> MemoryParts:
        parts = self._loaded().memory
        if not self.memory_on or parts is None:
            raise InputError("memory is off on this server (it was started with --no-memory)")
        return parts

    def _chat_memory(self, namespace: str | None) -> MemoryParts:
        """Recall and distillation, without the rolling summary: the client owns the dialogue."""
        return MemoryParts(store=self._store(namespace), distiller=self._memory().distiller, summarizer=None)

    def _exists(self, namespace: str | None) -> bool:
        """Whether the namespace holds a memory to read: reading one never creates it."""
        self._memory()
        if namespace is None or namespace in self._stores:
            return True
        return namespace_dir(self.settings.data_dir, namespace).is_dir()

    def _store(self, namespace: str | None) -> MemoryStore:
        own = self._memory().store
        if namespace is None:
            return own
        with self._lock:
            store = self._stores.pop(namespace, None)
            if store is None:
                from ..memory.store import MemoryStore

                store = MemoryStore.open(namespace_dir(self.settings.data_dir, namespace), self._loaded().embedder)
            self._stores[namespace] = store  # most recently used last
            idle = [name for name in self._stores if not self._users.get(name)]
            for name in idle[: max(0, len(self._stores) - MAX_OPEN_NAMESPACES)]:
                self._stores.pop(name).close()
            return store

    @contextlib.contextmanager
    def _using(self, namespace: str | None) -> Iterator[None]:
        """A request's hold on its namespace: its store stays open meanwhile."""
        with self._lock:
            self._users[namespace] = self._users.get(namespace, 0) + 1
        try:
            yield
        finally:
            with self._lock:
                self._users[namespace] -= 1

    def _memory_worker(self, namespace: str | None) -> Background:
        with self._lock:
            if namespace not in self._workers:
                self._workers[namespace] = Background(f"memory-work-{namespace or 'default'}")
            return self._workers[namespace]

    def _in_turn(self, namespace: str | None, job: Callable[[], T]) -> T:
        """Run `job` on the namespace's memory-work thread, after the work queued there."""
        return self._memory_worker(namespace).submit(job).result()
