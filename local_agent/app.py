"""Wiring: build the backend, memory and agent that a front end (CLI, batch) asks for."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from .agent import Agent, MemoryParts
from .backends import create_backend
from .backends.base import Backend
from .backends.llama_state import delete_states
from .config import Settings
from .memory.sessions import Session, SessionStore
from .memory.sessions.epoch import bump_epoch
from .memory.sessions.transcripts import find_messages, remove_from_history, remove_messages
from .memory.store.datadir import HISTORY_NAME, claim_data_dir
from .prompt import DEFAULT_SYSTEM
from .turn_result import TurnResult

if TYPE_CHECKING:
    from .backends.probe import BackendChoice
    from .memory.store import MemoryStore
    from .memory.store.forgetting import Origin

Status = Callable[[str], None]


class BackendFactory(Protocol):
    """Loads a model for `settings` (`model` instead of settings.model when given), as
    backends.create_backend does; tests pass a scripted one."""

    def __call__(self, settings: Settings, *, model: str | None = None) -> tuple[Backend, BackendChoice]: ...


def _quiet(_: str) -> None:
    pass


def open_store(settings: Settings) -> MemoryStore:
    from .memory.index.gguf_embedder import memory_embedder
    from .memory.store import MemoryStore

    return MemoryStore.open(settings.data_dir, memory_embedder(settings.models_dir, settings.device))


@dataclass
class Runtime:
    """Everything a conversation holds open; `close()` frees it all (the agent's memory work
    first, then the models and the store)."""

    agent: Agent
    backend: Backend
    choice: BackendChoice
    resources: contextlib.ExitStack = field(default_factory=contextlib.ExitStack, repr=False)

    def close(self) -> None:
        self.resources.close()

    def __enter__(self) -> Runtime:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def turn_json(self, result: TurnResult) -> dict[str, Any]:
        """The JSON shape shared by `ask --json` and `batch` records; waits for the turn's
        memory work, whose saved facts and timings it reports."""
        work = result.memory_work()
        return {
            "answer": result.answer,
            "session": result.session,
            "backend": self.choice.backend,
            "device": self.choice.device,
            "model": self.backend.model_name,
            "interrupted": result.interrupted,
            "memories_saved": [{"id": o.record.id, "text": o.record.text, "action": o.action} for o in work.saved],
            "memories_recalled": [
                {"id": h.record.id, "kind": h.record.kind, "text": h.record.text, "score": round(h.score, 4)}
                for h in result.recalled
            ],
            "timings": {k: round(v, 4) for k, v in {**result.timings, **work.timings}.items()},
            "tokens": dict(result.tokens),
            "notices": list(result.notices),
        }


def _distill_backend(settings: Settings, chat: Backend, choice: BackendChoice,
                     backend_factory: BackendFactory) -> tuple[Backend, bool]:
    """The distiller gets its own llama.cpp instance so its fixed prompt prefix stays in the
    KV cache between turns; a separate --distill-model is loaded as asked. Returns (backend, owned)."""
    if settings.distill_model:
        backend, _ = backend_factory(settings, model=settings.distill_model)
        return backend, True
    if choice.backend == "llama-cpp":
        backend, _ = backend_factory(settings)
        return backend, True
    return chat, False


def load_session(sessions: SessionStore, name: str | None) -> Session:
    """The named session (created if new), or a fresh one with a generated name."""
    return sessions.load_or_create(name) if name else sessions.new()


def build_runtime(
    settings: Settings,
    *,
    session: str | None = None,
    system: str | None = None,
    memory: bool = True,
    status: Status = _quiet,
    backend_factory: BackendFactory = create_backend,
) -> Runtime:
    """Load the model (through `backend_factory`), open memory when asked, and make the agent.
    Whatever was opened is closed again when a later step fails."""
    sessions = SessionStore(claim_data_dir(settings.data_dir))
    dialogue = load_session(sessions, session)  # a bad session file fails before the model loads
    with contextlib.ExitStack() as opened:
        status(f"loading {settings.model} ...")
        backend, choice = backend_factory(settings)
        opened.callback(backend.close)
        status(f"loaded {backend.model_name} with {choice.backend} on {choice.device}: {choice.reason}")
        parts = _memory_parts(settings, backend, choice, opened, status, backend_factory) if memory else None
        agent = Agent(backend, sessions, dialogue, settings, memory=parts, directive=system or DEFAULT_SYSTEM)
        opened.callback(agent.close)  # closed first: its memory work still uses the rest
        return Runtime(agent=agent, backend=backend, choice=choice, resources=opened.pop_all())


def _memory_parts(settings: Settings, backend: Backend, choice: BackendChoice, opened: contextlib.ExitStack,
                  status: Status, backend_factory: BackendFactory) -> MemoryParts:
    from .memory.distill import Distiller
    from .memory.summary import Summarizer

    status("opening memory ...")
    store = open_store(settings)
    opened.callback(store.close)
    distill_backend, owned = _distill_backend(settings, backend, choice, backend_factory)
    if owned:
        opened.callback(distill_backend.close)
    return MemoryParts(
        store=store,
        distiller=Distiller(distill_backend, store.embedder),
        summarizer=Summarizer(distill_backend),
    )


def forget_everything(settings: Settings) -> None:
    """Remove all memory: facts, turns, vectors, journal, backups, sessions (with their
    summaries), the chat's line-editing history and the saved llama.cpp states (which hold
    session summaries); only files local-agent made. Raises
    rather than return when any of it could not be deleted."""
    data_dir = claim_data_dir(settings.data_dir)
    bump_epoch(data_dir)  # open chats must not write back what they hold (epoch.py)
    SessionStore(data_dir).delete_all()  # first: it refuses links before deleting anything
    store = open_store(settings)
    try:
        store.forget_all()
    finally:
        store.close()
    (data_dir / HISTORY_NAME).unlink(missing_ok=True)
    delete_states(data_dir)
    bump_epoch(data_dir)  # again: a chat that read the old files meanwhile sees it too


def memory_origin(settings: Settings, ident: str) -> tuple[Origin, list[tuple[str, int]]]:
    """Where a memory came from: its origin in the store, and the (session, message index)
    of each transcript message that holds one of its sources."""
    store = open_store(settings)
    try:
        origin = store.origin(ident)
    finally:
        store.close()
    return origin, find_messages(SessionStore(settings.data_dir), origin)


def forget_memory(settings: Settings, ident: str, *, with_source: bool) -> tuple[Origin, list[str]]:
    """Forget a memory; `with_source` also forgets the messages it was made from: their turn
    memories, the messages (with the answers to them) in the session transcripts, and their
    lines in the chat's line-editing history. Returns
    the origin and the sessions whose transcript changed. Transcripts go first, so a failure
    leaves the memory in place to forget again."""
    store = open_store(settings)
    try:
        origin = store.origin(ident)
        if not with_source:
            store.forget(origin.record.id)
            return origin, []
        edited = remove_messages(SessionStore(settings.data_dir), origin)
        remove_from_history(settings.data_dir / HISTORY_NAME, origin)
        delete_states(settings.data_dir)  # a saved system prompt may hold a summary of the messages
        if edited:  # an open chat may still hold the message (or a summary of it): it drops them
            bump_epoch(settings.data_dir)
        return store.forget_with_source(origin.record.id), edited
    finally:
        store.close()
