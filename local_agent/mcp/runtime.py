"""What the MCP server holds open, each part loaded on first use, and the jobs that use it.

- The memory: the embedder, the data dir's store and the memory service over it; what recall,
  list, forget and the resources need. A server that only recalls never loads a model.
- The models: the chat model and the distiller's (app.build_runtime, handed the embedder that
  is already loaded); what remember (the distiller's gate, rules and model) and ask need. Once
  they are loaded, the runtime's own store and service take over from the memory-only ones.

Jobs run on a worker thread one at a time (the server's rule: no model or store is used from
two threads at once). While a job loads something it says so, and `run` hands each line to
the request's progress callback, which sends it to the client as a progress notification.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import anyio
import anyio.from_thread
import anyio.to_thread

if TYPE_CHECKING:
    from ..app import BackendFactory, Runtime
    from ..config import Settings
    from ..memory.index.embedder import TextEmbedder
    from ..memory.service import Distilled, MemoryService
    from ..memory.store import MemoryStore
    from ..turn.result import MemoryWork, TurnResult

log = logging.getLogger(__name__)

Progress = Callable[[str], Awaitable[None]]  # sends one line to the client (a progress notification)
T = TypeVar("T")
VIA = "mcp"  # the front end a remembered fact's provenance names


@dataclass(frozen=True)
class Asked:
    """An answered `ask`: the turn (its answer and the memories it recalled) and what its memory
    work saved (nothing when incognito)."""

    turn: TurnResult
    work: MemoryWork


class McpRuntime:
    """The memory and the models of one MCP server, over `settings.data_dir` (the user's own
    data dir `root`, or a namespace in it), loaded when a job first needs them."""

    def __init__(self, settings: Settings, root: Path, *, backend_factory: BackendFactory | None = None) -> None:
        self.settings = settings
        self.root = Path(root)
        self._backend_factory = backend_factory
        self._store: MemoryStore | None = None  # the memory-only store, until the models load
        self._runtime: Runtime | None = None
        self._embedder: TextEmbedder | None = None
        self._lock = anyio.Lock()
        self._report: Callable[[str], None] = _log_only

    # -- running jobs -------------------------------------------------------------------------
    async def run(self, job: Callable[[], T], progress: Progress | None = None) -> T:
        """Run `job` on the worker thread after the jobs before it; what it says while it
        loads goes to `progress`. A cancelled request still waits for its job to end."""
        async with self._lock:
            self._report = _reporter(progress)
            try:
                return await anyio.to_thread.run_sync(job)
            finally:
                self._report = _log_only

    # -- jobs (on the worker thread) ------------------------------------------------------------
    def memory(self) -> MemoryService:
        """The memory service, over the runtime's store once the models are loaded, else over
        a store of its own (opened, with the embedder, on first use)."""
        from ..app import settings_clock
        from ..memory.service import MemoryService

        if self._runtime is not None and self._runtime.memory_service is not None:
            return self._runtime.memory_service
        if self._store is None:
            self._store = self._open_store()
        return MemoryService(self._store, self.settings.data_dir, clock=settings_clock(self.settings))

    def remember(self, text: str) -> Distilled:
        """`text` through the distiller's gate and the correction rules, as chat does."""
        runtime = self.models()
        if runtime.memory is None or runtime.memory.distiller is None or runtime.memory_service is None:
            raise RuntimeError("the runtime was built without memory")
        return runtime.memory_service.remember_said(text, runtime.memory.distiller, via=VIA)

    def ask(self, question: str) -> Asked:
        """One answer from the local model with memory, in a session of its own (as `ask` on
        the command line); incognito settings write nothing."""
        from ..app import load_session, make_tool_turn
        from ..memory.sessions import SessionStore
        from ..prompt import DEFAULT_SYSTEM
        from ..turn.agent import Agent

        runtime = self.models()
        sessions = SessionStore(self.settings.data_dir)
        agent = Agent(runtime.backend, sessions, load_session(sessions, None), self.settings, memory=runtime.memory,
                      directive=DEFAULT_SYSTEM, examples=runtime.agent.examples)
        if self.settings.tools_on:
            agent.use_tools(make_tool_turn(self.settings, agent, runtime.embedder, approver=None))
        try:
            result = agent.respond(question)
            return Asked(result, result.memory_work())
        finally:
            agent.close()

    def models(self) -> Runtime:
        """The chat and distiller models with the memory (loaded on first use): the
        memory-only store closes, and the runtime's own (on the same embedder) takes over."""
        from ..app import build_runtime
        from ..backends import create_backend

        if self._runtime is None:
            self._claim()
            if self._store is not None:  # one store open on the data dir at a time
                self._store.close()
                self._store = None
            self._runtime = build_runtime(self.settings, memory=True, status=self._status,
                                          backend_factory=self._backend_factory or create_backend,
                                          embedder=self._embedder_now())
            self._status("ready")
        return self._runtime

    def close(self) -> None:
        """Close what was opened (the models' memory work first)."""
        if self._runtime is not None:
            self._runtime.close()
            self._runtime = None
        if self._store is not None:
            self._store.close()
            self._store = None

    # -- internals ----------------------------------------------------------------------------
    def _open_store(self) -> MemoryStore:
        from ..app import open_store

        self._claim()
        embedder = self._embedder_now()
        self._status("loading the memory (its embedding model and store) ...")
        store = open_store(self.settings, embedder)
        self._status("memory ready")
        return store

    def _embedder_now(self) -> TextEmbedder:
        from ..app import open_embedder

        if self._embedder is None:
            self._embedder = open_embedder(self.settings)
        return self._embedder

    def _claim(self) -> None:
        """The user's data dir is claimed before a namespace in it is made."""
        from ..memory.store.datadir import claim_data_dir

        claim_data_dir(self.root)
        claim_data_dir(self.settings.data_dir)

    def _status(self, message: str) -> None:
        self._report(message)


def _log_only(message: str) -> None:
    log.info("%s", message)


def _reporter(progress: Progress | None) -> Callable[[str], None]:
    """A status callback for the worker thread: logged, and sent to `progress` on the event loop."""
    def report(message: str) -> None:
        _log_only(message)
        if progress is not None:
            with contextlib.suppress(Exception):  # a client gone mid-load must not fail the load
                anyio.from_thread.run(_sent, progress, message)
    return report


async def _sent(progress: Progress, message: str) -> None:
    await progress(message)
