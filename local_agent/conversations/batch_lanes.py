"""Which agent answers a batch line, and `batch --parallel N`: lines in lanes, N lanes at once
through one model (its backend decodes them together: backends/llama_parallel.py).

A lane is a run of lines that must be answered one after another, in input order:
- with memory written (memory on, not incognito), every line of one namespace (the line's
  `user`, else the data dir's own), whatever its session: a line recalls what every earlier
  line of its namespace stored, exactly as when the whole batch runs in order;
- otherwise (--no-memory, --incognito) every line of one session: nothing a line does reaches
  another session, so sessions run side by side, each one's turns in order.
Each namespace has its own store and session files (users/NAME, as the server's namespaces),
one agent for its lane, and the chat model, distiller and embedder of the runtime.
Records leave in input order; a stop (a failed line with --fail-fast, Ctrl-C) lets the lines
under way finish and writes every finished record, so --resume redoes only the rest.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..app import Runtime, make_tool_turn
from ..config import Settings
from ..errors import ConfigError
from ..memory.sessions import SessionStore
from ..memory.store.datadir import claim_data_dir, namespace_data_dir
from ..prompt import DEFAULT_SYSTEM
from ..turn.agent import Agent, MemoryParts
from .batch import BatchItem

if TYPE_CHECKING:
    from ..memory.store import MemoryStore
    from ..tools.loop import Approve

Answer = Callable[[Agent, BatchItem], tuple[bool, dict[str, Any]]]  # -> (failed, record)


class BatchAgents:
    """The agents of a batch run: the runtime's own for the data dir's namespace, and one per
    other namespace on that namespace's store and session files. `own_agent` makes a further
    agent of a namespace, for a lane of its own."""

    def __init__(self, runtime: Runtime, settings: Settings, approver: Approve | None = None) -> None:
        self.runtime, self.settings, self._approver = runtime, settings, approver
        self._shared: dict[str | None, Agent] = {None: runtime.agent}
        self._stores: dict[str, MemoryStore] = {}
        self._made: list[Agent] = []
        self._lock = threading.Lock()

    def agent(self, user: str | None) -> Agent:
        """The namespace's one agent (its lines in order)."""
        with self._lock:
            if user not in self._shared:
                self._shared[user] = self._new(user)
            return self._shared[user]

    def own_agent(self, user: str | None) -> Agent:
        with self._lock:
            return self._new(user)

    def _new(self, user: str | None) -> Agent:
        folder = claim_data_dir(namespace_data_dir(self.settings.data_dir, user))
        sessions = SessionStore(folder)
        agent = Agent(self.runtime.backend, sessions, sessions.new(), self.settings, memory=self._memory(user),
                      directive=DEFAULT_SYSTEM, examples=self.runtime.agent.examples)
        if self.settings.tools_on:
            agent.use_tools(make_tool_turn(self.settings, agent, self.runtime.embedder, self._approver))
        self._made.append(agent)
        return agent

    def _memory(self, user: str | None) -> MemoryParts | None:
        own = self.runtime.memory
        if own is None or user is None:
            return own
        if user not in self._stores:
            from ..memory.store import MemoryStore

            folder = namespace_data_dir(self.settings.data_dir, user)
            self._stores[user] = MemoryStore.open(folder, self.runtime.embedder)
        return MemoryParts(store=self._stores[user], distiller=own.distiller, summarizer=own.summarizer)

    def close(self) -> None:
        """Finish every agent's memory work, then close the namespaces' stores."""
        for agent in self._made:
            agent.close()
        for store in self._stores.values():
            store.close()
        self._made.clear()
        self._stores.clear()


@dataclass
class Lane:
    user: str | None
    items: list[BatchItem] = field(default_factory=list)


def lanes(items: list[BatchItem], *, by_namespace: bool) -> list[Lane]:
    """The lanes of `items` (lines without an error), in the order of their first line."""
    found: dict[tuple[str | None, str | None], Lane] = {}
    for item in items:
        key = (item.user, None if by_namespace else item.session)
        found.setdefault(key, Lane(item.user)).items.append(item)
    return list(found.values())


class ParallelRun:
    """`parallel` lanes at once, each on a thread of its own; `answer` gives each line's
    record, `write` writes one (called in input order, on the calling thread)."""

    def __init__(self, agents: BatchAgents, answer: Answer, write: Callable[[dict[str, Any]], None], *,
                 parallel: int, by_namespace: bool, fail_fast: bool = False) -> None:
        if agents.settings.tools_on and agents.settings.approve:
            raise ConfigError("--parallel asks no one about tool calls: turn approval off, or use --parallel 1")
        self._agents, self._answer, self._write = agents, answer, write
        self._parallel, self._by_namespace, self._fail_fast = parallel, by_namespace, fail_fast
        self._lanes: queue.SimpleQueue[Lane] = queue.SimpleQueue()
        self._done: queue.SimpleQueue[tuple[int, bool, dict[str, Any]] | None] = queue.SimpleQueue()
        self._stop = threading.Event()
        self._interrupted = False  # a line was cut short: the run ends as Ctrl-C ends it
        self._running = 0  # lane threads still working

    def run(self, items: list[BatchItem], bad: list[tuple[int, dict[str, Any]]]) -> tuple[int, int]:
        """Answer `items` (and write the records `bad` already has, for lines that failed to
        parse) in input order; returns (failed, written)."""
        for lane in lanes(items, by_namespace=self._by_namespace):
            self._lanes.put(lane)
        threads = [threading.Thread(target=self._work, name=f"batch-lane-{n}") for n in range(self._parallel)]
        for thread in threads:
            thread.start()
        writer = _InOrder(sorted([item.line for item in items] + [line for line, _ in bad]), self._write)
        for line, record in bad:
            writer.add(line, True, record)
        self._running = len(threads)
        try:
            self._collect(writer)
        except BaseException:  # Ctrl-C: the lines under way finish, then every finished record is written
            self._stop.set()
            self._collect(writer)
            raise
        finally:
            for thread in threads:
                thread.join()
            writer.flush_all()
        if self._interrupted:
            raise KeyboardInterrupt
        return writer.failed, writer.written

    def _collect(self, writer: _InOrder) -> None:
        while self._running:
            done = self._done.get()
            if done is None:
                self._running -= 1
                continue
            line, failed, record = done
            writer.add(line, failed, record)
            if writer.failed and self._fail_fast:
                self._stop.set()

    def _work(self) -> None:
        try:
            while not self._stop.is_set():
                try:
                    lane = self._lanes.get_nowait()
                except queue.Empty:
                    return
                self._run_lane(lane)
        finally:
            self._done.put(None)

    def _run_lane(self, lane: Lane) -> None:
        shared = self._by_namespace
        agent = self._agents.agent(lane.user) if shared else self._agents.own_agent(lane.user)
        for item in lane.items:
            if self._stop.is_set():
                return
            try:
                failed, record = self._answer(agent, item)
            except KeyboardInterrupt:  # the line was cut short: --resume answers it again
                self._interrupted = True
                self._stop.set()
                return
            self._done.put((item.line, failed, record))


class _InOrder:
    """Records written in input order as they come; what is left after a stop, in order."""

    def __init__(self, order: list[int], write: Callable[[dict[str, Any]], None]) -> None:
        self._order, self._write = order, write
        self._ready: dict[int, tuple[bool, dict[str, Any]]] = {}
        self._next = 0
        self.failed = self.written = 0

    def add(self, line: int, failed: bool, record: dict[str, Any]) -> None:
        self._ready[line] = (failed, record)
        while self._next < len(self._order) and self._order[self._next] in self._ready:
            self._emit(self._order[self._next])
            self._next += 1

    def flush_all(self) -> None:
        for line in sorted(self._ready):
            self._emit(line)

    def _emit(self, line: int) -> None:
        failed, record = self._ready.pop(line)
        self._write(record)
        self.written += 1
        self.failed += failed
