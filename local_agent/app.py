"""Wiring: build the backend, memory and agent that a front end (CLI, batch) asks for."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

from .agent import Agent, AgentOptions, MemoryParts
from .backends import create_backend
from .backends.base import Backend
from .config import Settings
from .memory.sessions import Session, SessionStore
from .memory.sessions.epoch import bump_epoch
from .memory.sessions.transcripts import find_messages, remove_from_history, remove_messages
from .memory.store.datadir import HISTORY_NAME, claim_data_dir
from .prompt import DEFAULT_SYSTEM

if TYPE_CHECKING:
    from .backends.probe import BackendChoice
    from .memory.store import MemoryStore
    from .memory.store.forgetting import Origin

Status = Callable[[str], None]


def _quiet(_: str) -> None:
    pass


def open_store(settings: Settings) -> "MemoryStore":
    from .memory.index.embedder import Embedder
    from .memory.store import MemoryStore

    return MemoryStore.open(settings.data_dir, Embedder())


@dataclass
class Runtime:
    """Everything a conversation holds open; `close()` frees it all."""

    agent: Agent
    backend: Backend
    choice: "BackendChoice"
    store: "MemoryStore | None" = None
    extra_backends: list[Backend] = field(default_factory=list)

    def close(self) -> None:
        self.agent.wait()
        for backend in [self.backend, *self.extra_backends]:
            backend.close()
        if self.store is not None:
            self.store.close()


def _distill_backend(settings: Settings, chat: Backend, choice: "BackendChoice") -> tuple[Backend, bool]:
    """The distiller gets its own llama.cpp instance so its fixed prompt prefix stays in the
    KV cache between turns; a separate --distill-model is loaded as asked. Returns (backend, owned)."""
    if settings.distill_model:
        backend, _ = create_backend(settings, model=settings.distill_model)
        return backend, True
    if choice.backend == "llama-cpp":
        backend, _ = create_backend(settings)
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
) -> Runtime:
    sessions = SessionStore(claim_data_dir(settings.data_dir))
    dialogue = load_session(sessions, session)  # a bad session file fails before the model loads
    status(f"loading {settings.model} ...")
    backend, choice = create_backend(settings)
    status(f"loaded {backend.model_name} with {choice.backend} on {choice.device}: {choice.reason}")
    options = AgentOptions(
        recall_k=settings.recall_k,
        memory_tokens=settings.memory_tokens,
        summary_after_exchanges=settings.summary_after_turns,
        keep_recent_exchanges=settings.keep_recent_turns,
        incognito=settings.incognito,
        directive=system or DEFAULT_SYSTEM,
    )
    runtime = Runtime(agent=None, backend=backend, choice=choice)  # type: ignore[arg-type]
    parts = None
    if memory:
        with _closing_on_error(backend):
            parts = _memory_parts(settings, backend, choice, runtime, status)
    runtime.agent = Agent(
        backend, sessions, dialogue, settings.generation(),
        memory=parts, options=options,
    )
    return runtime


def _memory_parts(settings: Settings, backend: Backend, choice: "BackendChoice", runtime: Runtime, status: Status) -> MemoryParts:
    from .memory.distill import Distiller
    from .memory.summary import Summarizer

    status("opening memory ...")
    store = open_store(settings)
    runtime.store = store
    distill_backend, owned = _distill_backend(settings, backend, choice)
    if owned:
        runtime.extra_backends.append(distill_backend)
    return MemoryParts(
        store=store,
        distiller=Distiller(distill_backend, store.embedder),
        summarizer=Summarizer(distill_backend),
    )


@contextlib.contextmanager
def _closing_on_error(backend: Backend):
    try:
        yield
    except BaseException:
        backend.close()
        raise


def forget_everything(settings: Settings) -> None:
    """Remove all memory: facts, turns, vectors, journal, backups, sessions (with their
    summaries) and the chat's line-editing history; only files local-agent made. Raises
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
    bump_epoch(data_dir)  # again: a chat that read the old files meanwhile sees it too


def memory_origin(settings: Settings, ident: str) -> "tuple[Origin, list[tuple[str, int]]]":
    """Where a memory came from: its origin in the store, and the (session, message index)
    of each transcript message that holds one of its sources."""
    store = open_store(settings)
    try:
        origin = store.origin(ident)
    finally:
        store.close()
    return origin, find_messages(SessionStore(settings.data_dir), origin)


def forget_memory(settings: Settings, ident: str, *, with_source: bool) -> "tuple[Origin, list[str]]":
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
        if edited:  # an open chat may still hold the message (or a summary of it): it drops them
            bump_epoch(settings.data_dir)
        return store.forget_with_source(origin.record.id), edited
    finally:
        store.close()
