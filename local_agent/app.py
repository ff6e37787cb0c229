"""Wiring: build the backend, memory and agent that a front end (CLI, batch) asks for."""

from __future__ import annotations

import contextlib
import datetime as dt
import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from .backends import create_backend
from .backends.base import Backend
from .backends.llama_state import delete_states
from .config import Settings
from .errors import ConfigError, ToolError
from .memory.sessions import Session, SessionStore
from .memory.sessions.epoch import bump_epoch
from .memory.sessions.transcripts import find_messages, remove_from_history, remove_messages
from .memory.store.datadir import HISTORY_NAME, claim_data_dir, namespace_dirs
from .prompt import DEFAULT_SYSTEM
from .turn.agent import Agent, MemoryParts
from .turn.result import TurnResult

if TYPE_CHECKING:
    import numpy as np

    from .backends.probe import BackendChoice
    from .memory.index.embedder import Embedder, TextEmbedder
    from .memory.store import MemoryStore
    from .memory.store.forgetting import Origin
    from .tools.loop import Approve
    from .turn.tool_turn import ToolTurn

Status = Callable[[str], None]
TOOL_CACHE_DIR = "tool-cache"  # in the data dir: the notes index (chunks and vectors of the user's notes)


class BackendFactory(Protocol):
    """Loads a model for `settings` (`model` instead of settings.model when given), as
    backends.create_backend does; tests pass a scripted one."""

    def __call__(self, settings: Settings, *, model: str | None = None) -> tuple[Backend, BackendChoice]: ...


def _quiet(_: str) -> None:
    pass


def open_embedder(settings: Settings) -> Embedder:
    from .memory.index.gguf_embedder import memory_embedder

    return memory_embedder(settings.models_dir, settings.device)


def open_store(settings: Settings) -> MemoryStore:
    from .memory.store import MemoryStore

    return MemoryStore.open(settings.data_dir, open_embedder(settings))


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
            "tool_calls": [call.to_dict() for call in result.tool_calls],
            "asked_user": result.asked_user,
            "tools": result.tools.to_dict() if result.tools is not None else None,
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
    approver: Approve | None = None,
) -> Runtime:
    """Load the model (through `backend_factory`), open memory when asked, and make the agent,
    with its tools when settings turn them on (`approver` asks the user about a call while
    approval is on). Whatever was opened is closed again when a later step fails."""
    sessions = SessionStore(claim_data_dir(settings.data_dir))
    dialogue = load_session(sessions, session)  # a bad session file fails before the model loads
    if settings.tools_on:
        check_tool_sources(settings)  # before the model loads, as a bad flag should
    with contextlib.ExitStack() as opened:
        status(f"loading {settings.model} ...")
        backend, choice = backend_factory(settings)
        opened.callback(backend.close)
        status(f"loaded {backend.model_name} with {choice.backend} on {choice.device}: {choice.reason}")
        parts = _memory_parts(settings, backend, choice, opened, status, backend_factory) if memory else None
        agent = Agent(backend, sessions, dialogue, settings, memory=parts, directive=system or DEFAULT_SYSTEM)
        opened.callback(agent.close)  # closed first: its memory work still uses the rest
        if settings.tools_on:
            agent.use_tools(make_tool_turn(settings, agent, parts, approver))
        return Runtime(agent=agent, backend=backend, choice=choice, resources=opened.pop_all())


def check_tool_sources(settings: Settings) -> None:
    """ConfigError (one line) for an unknown tool name, or unless --db names a regular file
    and --notes a folder."""
    from .tools.notes_files import notes_root
    from .tools.registry import TOOL_NAMES
    from .tools.sqlite_ro import check_database_file

    unknown = [name for name in settings.enabled_tools if name not in TOOL_NAMES]
    if unknown:
        raise ConfigError(f"enabled_tools: unknown tool {unknown[0]!r} (choose from {', '.join(TOOL_NAMES)})")
    try:
        if settings.db is not None:
            check_database_file(settings.db)
        if settings.notes is not None:
            notes_root(settings.notes)
    except ToolError as exc:
        raise ConfigError(str(exc)) from None


def make_tool_turn(settings: Settings, agent: Agent, parts: MemoryParts | None,
                   approver: Approve | None) -> ToolTurn:
    """The enabled tools (every available one unless settings name them): memory search
    through the agent's recall, notes search with the memory's embedder."""
    from .tools.intent import Intent
    from .tools.registry import ToolSources, build_tools
    from .turn.tool_turn import ToolTurn

    embedder = parts.store.embedder if parts else (open_embedder(settings) if settings.notes else None)
    sources = ToolSources(
        today=lambda: dt.date.fromisoformat(agent.today()), notes_dir=settings.notes, db_file=settings.db,
        recall=agent.recall_texts if parts else None, embed=embedder.embed if embedder else None,
        embedder_id=embedder.model_id if embedder else "", cache_dir=settings.data_dir / TOOL_CACHE_DIR,
        sql_time_limit=settings.tool_timeout * 0.8,  # SQLite stops itself before the call's own limit
    )
    tools = build_tools(sources, settings.enabled_tools or None)
    intent = Intent(embedder.embed if embedder else _embed_when_needed(settings))
    return ToolTurn(tools, agent.backend, max_steps=settings.max_steps, tool_timeout=settings.tool_timeout,
                    seed=settings.seed, approver=approver, approving=settings.approve, intent=intent)


def _embed_when_needed(settings: Settings) -> Callable[[list[str]], np.ndarray]:
    """An embed function that opens the memory embedder on its first call (memory off: the
    router's classifier needs it only for questions its rules leave open)."""
    opened: list[Embedder] = []

    def embed(texts: list[str]) -> np.ndarray:
        if not opened:
            opened.append(open_embedder(settings))
        return opened[0].embed(texts)
    return embed


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
    summaries), the chat's line-editing history, the notes index and the saved llama.cpp
    states (which hold session summaries), in the data dir and in each of the server's
    namespaces (`users/NAME`); only files local-agent made. Raises
    rather than return when any of it could not be deleted."""
    data_dir = claim_data_dir(settings.data_dir)
    namespaces = namespace_dirs(data_dir)  # the server's users/NAME: links refused before anything goes
    embedder = _forget_data_dir(data_dir, lambda: open_store(settings))
    for folder in namespaces:
        _forget_data_dir(claim_data_dir(folder), functools.partial(_open_at, folder, embedder))


def _forget_data_dir(data_dir: Path, opened: Callable[[], MemoryStore]) -> TextEmbedder:
    """forget_everything in one data dir (the default or a namespace); returns the store's
    embedder, for the next."""
    bump_epoch(data_dir)  # open chats must not write back what they hold (epoch.py)
    SessionStore(data_dir).delete_all()  # first: it refuses links before deleting anything
    store = opened()
    try:
        store.forget_all()
    finally:
        store.close()
    (data_dir / HISTORY_NAME).unlink(missing_ok=True)
    for cache in (data_dir / TOOL_CACHE_DIR).glob("notes-*.json"):  # what was read from the notes
        cache.unlink(missing_ok=True)
    delete_states(data_dir)
    bump_epoch(data_dir)  # again: a chat that read the old files meanwhile sees it too
    return store.embedder


def _open_at(data_dir: Path, embedder: TextEmbedder) -> MemoryStore:
    from .memory.store import MemoryStore

    return MemoryStore.open(data_dir, embedder)


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
