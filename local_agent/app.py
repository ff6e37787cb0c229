"""Wiring: build the models, memory and agent that a front end (CLI, batch, server) asks for.

The runtime owns each shared thing once: the chat model, the distiller's model, the embedder,
the memory store and the memory service over it. Front ends, tools and the server take them
from the runtime; nothing reaches through the agent for them. What a turn gives back as JSON
lives in turn/record.py, what people do to memory in memory/service.py.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from .backends import create_backend
from .backends.base import Backend
from .config import DEFAULT_MODEL, Settings
from .dates.clock import now as clock_now
from .errors import ConfigError, ModelError, ToolError
from .memory.service import MemoryService
from .memory.sessions import Session, SessionStore
from .memory.store.datadir import TOOL_CACHE_NAME, claim_data_dir
from .prompt import DEFAULT_EXAMPLES, DEFAULT_SYSTEM
from .reading import dates as date_reading
from .turn.agent import Agent, MemoryParts

if TYPE_CHECKING:
    from .backends.probe import BackendChoice
    from .memory.index.embedder import TextEmbedder
    from .memory.store import MemoryStore
    from .tools.loop import Approve
    from .tools.mcp_client import McpServers
    from .turn.tool_turn import ToolTurn

Status = Callable[[str], None]


class BackendFactory(Protocol):
    """Loads a model for `settings` (`model` instead of settings.model when given), as
    backends.create_backend does; tests pass a scripted one."""

    def __call__(self, settings: Settings, *, model: str | None = None) -> tuple[Backend, BackendChoice]: ...


def _quiet(_: str) -> None:
    pass


def open_embedder(settings: Settings) -> TextEmbedder:
    """The memory embedder for `settings`, chosen and loaded on first use."""
    from .memory.index.gguf_embedder import memory_embedder
    from .memory.index.lazy import LazyEmbedder

    return LazyEmbedder(lambda: memory_embedder(settings.models_dir, settings.device))


def open_store(settings: Settings, embedder: TextEmbedder | None = None) -> MemoryStore:
    """The data dir's memory store, on `embedder` (a new one when not given)."""
    from .memory.store import MemoryStore

    return MemoryStore.open(settings.data_dir, embedder if embedder is not None else open_embedder(settings))


def settings_clock(settings: Settings) -> Callable[[], dt.datetime]:
    """The moment memory is dated with: --today when set, else the clock."""
    return lambda: clock_now(settings.today)


@contextlib.contextmanager
def opened_memory(settings: Settings) -> Iterator[MemoryService]:
    """The memory service over the data dir's own store, for one command (`memory ...`)."""
    store = open_store(settings)
    try:
        yield MemoryService(store, settings.data_dir, clock=settings_clock(settings))
    finally:
        store.close()


@dataclass
class Runtime:
    """Everything a conversation holds open, each with one owner: the chat model (`backend`,
    and how it was chosen), the distiller's model (`distill_backend`: the chat model itself
    unless a separate instance was loaded; None with memory off), the embedder (memory's, the
    notes search's and the tool router's, loaded on first use), the memory the agent works with
    (`memory`: store, distiller, summarizer; None with memory off) and the memory service over
    it (`memory_service`, for /remember, /forget and the like). `close()` frees it all (the
    agent's memory work first, then the models and the store)."""

    agent: Agent
    backend: Backend
    choice: BackendChoice
    embedder: TextEmbedder
    distill_backend: Backend | None = None
    memory: MemoryParts | None = None
    memory_service: MemoryService | None = None
    mcp: McpServers | None = None  # the user's MCP servers, with tools on (started on first use)
    resources: contextlib.ExitStack = field(default_factory=contextlib.ExitStack, repr=False)

    def close(self) -> None:
        self.resources.close()

    def __enter__(self) -> Runtime:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def warm_up(self, *, background: bool = True) -> None:
        """Load the embedding model and the date library (with memory on), in a thread of
        their own (while the user types) or now. `close()` waits for that thread: a load must
        not outlive the runtime, as llama.cpp's quiet load points the process's stdout and
        stderr at /dev/null while it runs (what the process printed next was lost)."""
        if self.memory is None:
            return
        embedder = self.embedder

        def load() -> None:
            embedder.warm_up()
            date_reading.warm_up()

        if background:
            loading = threading.Thread(target=load, name="warm-up", daemon=True)
            loading.start()
            self.resources.callback(loading.join)  # closed first: before the models it loads beside
        else:
            load()


def _distill_backend(settings: Settings, chat: Backend, choice: BackendChoice,
                     backend_factory: BackendFactory, status: Status = _quiet) -> tuple[Backend, bool]:
    """The model that distills memories and writes the summary: --distill-model, else the small
    default model, also beside a bigger chat model (it runs after every turn, so it is kept
    cheap; a default model that is not installed leaves the work to the chat model). The chat
    model distilling gets its own llama.cpp instance so its fixed prompt prefix stays in the KV
    cache between turns, loaded when it is first called (most turns never call it), unless it
    decodes several conversations at once (its slots keep that prefix). Returns (backend, owned)."""
    name = settings.distill_model or (DEFAULT_MODEL if settings.model != DEFAULT_MODEL else "")
    if name == settings.model:
        name = ""  # the chat model itself: shared, or a second llama.cpp instance (below)
    if name:
        try:
            backend, _ = backend_factory(settings, model=name)
            status(f"memories are distilled and summarized by {name}")
            return backend, True
        except ModelError as exc:
            if settings.distill_model:
                raise
            status(f"the chat model distills memories: {exc}")
    if choice.backend == "llama-cpp" and not chat.concurrent:
        from .backends.lazy import LazyBackend

        return LazyBackend(lambda: backend_factory(settings)[0], model_name=chat.model_name,
                           context_size=chat.context_size), True
    return chat, False


def parallel_factory(factory: BackendFactory, slots: int) -> BackendFactory:
    """`factory`, its llama.cpp models decoding `slots` conversations at once (its other
    runtimes as they are: one call at a time)."""
    if slots <= 1:
        return factory

    def load(settings: Settings, *, model: str | None = None) -> tuple[Backend, BackendChoice]:
        from .backends.llama_parallel import parallel_backend

        backend, choice = factory(settings, model=model)
        return parallel_backend(backend, slots), choice
    return load


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
    embedder: TextEmbedder | None = None,
) -> Runtime:
    """Load the model (through `backend_factory`), open memory when asked, and make the agent,
    with its tools when settings turn them on (`approver` asks the user about a call while
    approval is on). `embedder`: one the caller already holds (MCP's, loaded before the model
    was needed), else a new one loaded on first use. Whatever was opened is closed again when
    a later step fails."""
    sessions = SessionStore(claim_data_dir(settings.data_dir))
    dialogue = load_session(sessions, session)  # a bad session file fails before the model loads
    if settings.tools_on:
        check_tool_sources(settings)  # before the model loads, as a bad flag should (MCP commands too)
    with contextlib.ExitStack() as opened:
        status(f"loading {settings.model} ...")
        backend, choice = backend_factory(settings)
        opened.callback(backend.close)
        status(f"loaded {backend.model_name} with {choice.backend} on {choice.device}: {choice.reason}")
        embedder = embedder if embedder is not None else open_embedder(settings)
        if backend.concurrent:  # its calls on the model's thread (memory/index/model_thread.py)
            from .memory.index.model_thread import ModelThreadEmbedder

            embedder = ModelThreadEmbedder(embedder, backend.call)
        distill_backend, parts = None, None
        if memory:
            distill_backend, parts = _open_memory(settings, backend, choice, embedder, opened, status, backend_factory)
        agent = Agent(backend, sessions, dialogue, settings, memory=parts, directive=system or DEFAULT_SYSTEM,
                      examples=DEFAULT_EXAMPLES)
        opened.callback(agent.close)  # closed first: its memory work still uses the rest
        service = (MemoryService(parts.store, settings.data_dir, clock=agent.now, settle=agent.wait)
                   if parts is not None else None)
        mcp = None
        if settings.tools_on:
            mcp = open_mcp_servers(settings)
            if mcp is not None:
                opened.callback(mcp.close)  # stopped before the agent closes (callbacks run last first)
            agent.use_tools(make_tool_turn(settings, agent, embedder, approver, mcp))
        return Runtime(agent=agent, backend=backend, choice=choice, embedder=embedder,
                       distill_backend=distill_backend, memory=parts, memory_service=service, mcp=mcp,
                       resources=opened.pop_all())


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
    if settings.mcp_servers:
        from .tools.mcp_commands import parse_servers

        parse_servers(settings.mcp_servers)


def open_mcp_servers(settings: Settings) -> McpServers | None:
    """The MCP servers settings name (none started yet), their stderr logged in the tools' folder."""
    if not settings.mcp_servers:
        return None
    from .tools.mcp_client import McpServers
    from .tools.mcp_commands import parse_servers

    log_path = settings.data_dir / TOOL_CACHE_NAME / "mcp-servers.log"
    return McpServers(parse_servers(settings.mcp_servers), log_path, start_timeout=max(10.0, settings.tool_timeout))


def make_tool_turn(settings: Settings, agent: Agent, embedder: TextEmbedder, approver: Approve | None,
                   mcp: McpServers | None = None) -> ToolTurn:
    """The enabled tools (every available one unless settings name them): memory search
    through the agent's recall, notes search and the router's classifier on `embedder` (the
    runtime's, loaded when first needed)."""
    from .tools.intent import Intent
    from .tools.registry import ToolSources, build_tools
    from .turn.tool_turn import ToolTurn

    sources = ToolSources(
        today=lambda: dt.date.fromisoformat(agent.today()), notes_dir=settings.notes, db_file=settings.db,
        recall=agent.recall_texts if agent.has_memory else None,
        embed=embedder.embed if settings.notes is not None else None,  # the notes index's
        embedder_id=embedder.model_id if settings.notes is not None else "",
        cache_dir=settings.data_dir / TOOL_CACHE_NAME,
        sql_time_limit=settings.tool_timeout * 0.8,  # SQLite stops itself before the call's own limit
        notes_index_time=settings.tool_timeout * 0.5,  # the rest of a large note waits for later searches
    )
    tools = build_tools(sources, settings.enabled_tools or None)
    intent = Intent(embedder.embed)
    turn = ToolTurn(tools, agent.backend, max_steps=settings.max_steps, tool_timeout=settings.tool_timeout,
                    seed=settings.seed, approver=approver, approving=settings.approve, intent=intent)
    if mcp is not None:  # their tools join where the built-in router finds none (tools/mcp_route.py)
        from .tools.mcp_route import McpRouter

        turn.router = McpRouter(turn.tools, intent, mcp, embedder.embed)
    return turn


def _open_memory(settings: Settings, backend: Backend, choice: BackendChoice, embedder: TextEmbedder,
                 opened: contextlib.ExitStack, status: Status,
                 backend_factory: BackendFactory) -> tuple[Backend, MemoryParts]:
    """The store on `embedder`, and the distiller's and summarizer's model; returns that
    model and the parts the agent works with."""
    from .memory.distill import Distiller
    from .memory.summary import Summarizer

    status("opening memory ...")
    store = open_store(settings, embedder)
    opened.callback(store.close)
    distill_backend, owned = _distill_backend(settings, backend, choice, backend_factory, status)
    if owned:
        opened.callback(distill_backend.close)
    parts = MemoryParts(store=store, distiller=Distiller(distill_backend, embedder),
                        summarizer=Summarizer(distill_backend))
    return distill_backend, parts
