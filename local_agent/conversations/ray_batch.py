"""`batch --ray`: a batch spread over the actors of a Ray cluster, each holding the model once.

The unit of work is a lane (batch_lanes.py): with memory written, every line of one memory
namespace in input order (one namespace runs on one actor at a time); otherwise every line of
one session. An actor answers a lane on a scratch copy of its namespace (namespace_copy.py) and
returns a result per line; the driver commits them in input order: the line's memories through
the memory service's import into users/NAME (or the data dir's own store), its session file,
then its record. The output and the namespaces therefore end as a `--parallel 1` run leaves
them. An actor that dies has its lane run again on the restarted actor, from the lane's first
line: nothing of a lane is committed before its results come back, so nothing repeats.
Lines written before a stop are skipped by --resume, which sends each namespace's state as
committed.

Ray is imported only here, through ray_cluster.py, and only for `--ray`.
"""

from __future__ import annotations

import dataclasses
import os
import secrets
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import IO, Any

from ..app import BackendFactory, build_runtime, open_embedder, settings_clock
from ..backends import create_backend
from ..config import Settings
from ..errors import ConfigError
from ..memory.store.datadir import namespace_data_dir
from .batch import BatchItem, answer_record
from .batch_lanes import BatchAgents, Lane, lanes
from .batch_workers import answer_with
from .namespace_copy import LineResult, NamespaceCopy, Namespaces, StoreChanges, embedder_store, read_sessions, seed
from .ray_cluster import LOCAL, connected

RESTART_PATIENCE_S = 300.0  # how long a restarted actor may take to load the model again
MAX_ATTEMPTS = 3  # a lane whose actor died this many times fails its lines
ACTOR_NAME = "local-agent-batch-{run}-{n}"  # named, so that an operator (or a test) can find one


def one_namespace_warning(items: list[BatchItem], *, by_namespace: bool) -> str | None:
    """The warning for a batch that cannot spread: memory written and no line with a "user"."""
    if by_namespace and items and all(item.user is None for item in items):
        return ("batch --ray: every line is in one memory namespace (no \"user\" field) and memory is on, "
                "so the lines run one after another on one actor; give each line a \"user\", or use --no-memory")
    return None


# -- on each actor --------------------------------------------------------------------------
class BatchActor:
    """Holds one runtime (the model loaded once) and answers lanes on scratch namespaces."""

    def __init__(self, settings: Settings, memory: bool, backend_factory: BackendFactory,
                 setup: Callable[[], object] | None, cpus: int) -> None:
        os.environ["OMP_NUM_THREADS"] = str(cpus)  # Ray sets 1 in its workers
        if setup is not None:
            setup()
        self._root = Path(tempfile.mkdtemp(prefix="la-actor-"))
        self._settings = dataclasses.replace(settings, data_dir=self._root, threads=cpus)
        self._runtime = build_runtime(self._settings, memory=memory, backend_factory=backend_factory)
        self._base = self._settings.generation()
        self._runs = 0

    def run(self, items: list[BatchItem], copy: NamespaceCopy) -> list[LineResult]:
        """Answer a lane's lines in order on a copy of their namespace."""
        self._runs += 1
        scratch = f"lane-{self._runs}"
        folder = namespace_data_dir(self._root, scratch)
        agents = BatchAgents(self._runtime, self._settings)
        try:
            seed(folder, copy, lambda: self._store(agents, scratch))
            return self._answer(agents, scratch, items)
        finally:
            agents.close()
            shutil.rmtree(folder, ignore_errors=True)

    def _store(self, agents: BatchAgents, scratch: str) -> Any:
        memory = agents.agent(scratch).memory
        return memory.store if memory is not None else None

    def _answer(self, agents: BatchAgents, scratch: str, items: list[BatchItem]) -> list[LineResult]:
        agent = agents.agent(scratch)
        folder = namespace_data_dir(self._root, scratch)
        changes = StoreChanges(agent.memory.store if agent.memory is not None else None)
        results = []
        for item in items:  # each line with its session file as it then is: a stop between lines resumes there
            record = answer_record(item, lambda line: answer_with(self._runtime, agent, line, self._base))
            session = read_sessions(folder, {item.session}).get(item.session)
            results.append(LineResult(item.line, record, _exports(changes.take()), item.session, session))
        agent.close()  # the memory work still running, and a digest due at the end
        return _with_last_state(results, changes.take(), folder, items)

    def ready(self) -> bool:
        """Answers once the actor (restarted, after a death) has loaded its model."""
        return True

    def close(self) -> None:
        self._runtime.close()
        shutil.rmtree(self._root, ignore_errors=True)


def _with_last_state(results: list[LineResult], late: bytes | None, folder: Path,
                     items: list[BatchItem]) -> list[LineResult]:
    """What was written after the last line (a summary, the end-of-session digest): each
    session's file as it ends goes with its last line, the memories with the lane's last line."""
    files = read_sessions(folder, {item.session for item in items})
    last = {item.session: index for index, item in enumerate(items)}
    for session, index in last.items():
        results[index] = dataclasses.replace(results[index], session=session, session_file=files.get(session))
    if late is not None and results:
        results[-1] = dataclasses.replace(results[-1], memories=(*results[-1].memories, late))
    return results


# -- on the driver ----------------------------------------------------------------------------
@dataclass
class RayBatch:
    """A batch on a Ray cluster; records go to `sink` in input order (`progress` after each)."""

    settings: Settings
    sink: IO[str]
    address: str = LOCAL
    memory: bool = True
    fail_fast: bool = False
    actors: int = 0  # 0: one per CPU of the cluster
    progress: Callable[[], None] = lambda: None
    backend_factory: BackendFactory = create_backend
    worker_setup: Callable[[], object] | None = None
    warn: Callable[[str], None] = lambda text: print(text, file=sys.stderr)
    retried: list[int] = field(default_factory=list)  # the first line of each lane run again
    actor_names: list[str] = field(default_factory=list)

    def run(self, items: list[BatchItem]) -> tuple[int, int]:
        """Answer `items`, one record each; returns (failed, written)."""
        if self.settings.tools_on and self.settings.approve:
            raise ConfigError("batch --ray asks no one about tool calls: turn approval off")
        by_namespace = self.memory and not self.settings.incognito
        good = [item for item in items if item.error is None]
        warning = one_namespace_warning(good, by_namespace=by_namespace)
        if warning:
            self.warn(warning)
        work = lanes(good, by_namespace=by_namespace)
        open_store = embedder_store(open_embedder(self.settings)) if self.memory else None
        namespaces = Namespaces(self.settings.data_dir, open_store, settings_clock(self.settings))
        committer = _Committer(sorted(item.line for item in items), namespaces, self._write, self.fail_fast)
        try:
            for item in items:
                if item.error is not None:
                    committer.add(item.user, [LineResult(item.line, answer_record(item, _never))])
            if work and not (self.fail_fast and committer.failed):
                with connected(self.address) as ray:
                    self._spread(ray, work, namespaces, committer)
        finally:
            namespaces.close()
        return committer.failed, committer.written

    def _spread(self, ray: ModuleType, work: list[Lane], namespaces: Namespaces, committer: _Committer) -> None:
        cpus = int(ray.cluster_resources().get("CPU", 1))
        count = max(1, min(self.actors or cpus, len(work)))
        each = max(1, cpus // count)
        remote = ray.remote(BatchActor)
        self.actor_names = [ACTOR_NAME.format(run=secrets.token_hex(4), n=n) for n in range(count)]
        actors = [remote.options(name=name, num_cpus=each, max_restarts=-1, max_task_retries=0)
                  .remote(self.settings, self.memory, self.backend_factory, self.worker_setup, each)
                  for name in self.actor_names]
        queue, attempts = list(work), [0] * len(work)
        running: dict[Any, tuple[int, int]] = {}  # object ref -> (lane index, actor index)
        idle = list(range(count))
        indices = {id(lane): index for index, lane in enumerate(work)}
        restarted: set[int] = set()  # actors that died: Ray restarts them (the model loads again)
        while queue or running:
            while queue and idle and not (self.fail_fast and committer.failed):
                lane, actor = queue.pop(0), idle.pop(0)
                if actor in restarted:
                    _wait_alive(ray, actors[actor])
                    restarted.discard(actor)
                copy = namespaces.copy(lane.user, {item.session for item in lane.items})
                running[actors[actor].run.remote(lane.items, copy)] = (indices[id(lane)], actor)
            if not running:
                break
            [ref], _ = ray.wait(list(running), num_returns=1)
            index, actor = running.pop(ref)
            idle.append(actor)
            lane = work[index]
            try:
                committer.add(lane.user, ray.get(ref))
            except ray.exceptions.RayActorError as exc:
                restarted.add(actor)
                attempts[index] += 1
                self._retry_or_fail(lane, attempts[index], exc, queue, committer)
        for actor_handle in actors:
            ray.kill(actor_handle)

    def _retry_or_fail(self, lane: Lane, attempt: int, exc: Exception, queue: list[Lane],
                       committer: _Committer) -> None:
        first = lane.items[0].line
        if attempt < MAX_ATTEMPTS:
            self.warn(f"batch --ray: an actor stopped during the lines from line {first}; they run again")
            self.retried.append(first)
            queue.insert(0, lane)
            return
        error = f"the Ray actor answering this line stopped {attempt} times ({type(exc).__name__})"
        committer.add(lane.user, [LineResult(item.line, answer_record(dataclasses.replace(item, error=error), _never))
                                  for item in lane.items])

    def _write(self, record: dict[str, Any]) -> None:
        import json

        self.sink.write(json.dumps(record, ensure_ascii=False) + "\n")
        self.sink.flush()
        self.progress()


class _Committer:
    """Commits line results in input order: a line's memories and session file, then its
    record. With `fail_fast`, nothing after the first failed line."""

    def __init__(self, order: list[int], namespaces: Namespaces, write: Callable[[dict[str, Any]], None],
                 fail_fast: bool) -> None:
        self._order, self._namespaces, self._write, self._fail_fast = order, namespaces, write, fail_fast
        self._ready: dict[int, tuple[str | None, LineResult]] = {}
        self._next = 0
        self.failed = self.written = 0

    def add(self, user: str | None, results: list[LineResult]) -> None:
        self._ready.update((result.line, (user, result)) for result in results)
        while self._next < len(self._order) and self._order[self._next] in self._ready:
            if self._fail_fast and self.failed:
                return
            self._commit(*self._ready.pop(self._order[self._next]))
            self._next += 1

    def _commit(self, user: str | None, result: LineResult) -> None:
        self._namespaces.commit(user, result)
        self._write(result.record)
        self.written += 1
        self.failed += result.record["error"] is not None


def _exports(data: bytes | None) -> tuple[bytes, ...]:
    return () if data is None else (data,)


def _wait_alive(ray: ModuleType, actor: Any, patience_s: float = RESTART_PATIENCE_S) -> None:
    """Wait until a restarted actor answers; ConfigError when it does not within `patience_s`."""
    deadline = time.monotonic() + patience_s
    while True:
        try:
            ray.get(actor.ready.remote(), timeout=max(1.0, deadline - time.monotonic()))
            return
        except (ray.exceptions.RayActorError, ray.exceptions.GetTimeoutError):
            if time.monotonic() >= deadline:
                raise ConfigError(f"a Ray actor did not come back within {patience_s:.0f} s after it stopped") from None
            time.sleep(0.5)


def _never(item: BatchItem) -> tuple[Any, dict[str, Any]]:
    raise AssertionError(f"line {item.line} has an error: it is not answered")
