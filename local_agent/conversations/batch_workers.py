"""How batch items run: in this process, one line after another or several lanes at once
through one model (`batch --parallel`, batch_lanes.py), or one session per task in worker
processes (`batch --workers`), each worker with its own runtime; the records written in input
order."""

from __future__ import annotations

import dataclasses
import functools
import io
import json
import multiprocessing
import multiprocessing.util
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any

from ..app import BackendFactory, Runtime, build_runtime, parallel_factory
from ..backends import create_backend
from ..config import Settings
from ..turn.agent import Agent
from ..turn.record import turn_json
from ..turn.result import TurnResult
from ..types import GenerationSettings
from .batch import BatchItem, BatchRunner, answer_record
from .batch_lanes import BatchAgents, ParallelRun

if TYPE_CHECKING:
    from ..tools.loop import Approve


def answer_with(runtime: Runtime, agent: Agent, item: BatchItem, base: GenerationSettings
                ) -> tuple[TurnResult, dict[str, Any]]:
    """Answer one item in its session through `agent`, with the item's own settings over `base`."""
    agent.use_session(item.session)
    result = agent.respond(item.input, generation=dataclasses.replace(base, **item.overrides), today=item.today)
    if result.interrupted:  # Ctrl-C: stop the batch; this line is redone by --resume
        raise KeyboardInterrupt
    # waits for the memory work: memories saved by this line are part of its record
    turn = turn_json(result, runtime.choice, runtime.backend.model_name)
    turn["error"] = None
    return result, turn


Respond = Callable[[BatchItem], tuple[TurnResult, dict[str, Any]]]


def responder(agents: BatchAgents, base: GenerationSettings) -> Respond:
    """Answer one item through its namespace's agent."""
    return lambda item: answer_with(agents.runtime, agents.agent(item.user), item, base)


def session_groups(items: list[BatchItem]) -> list[list[BatchItem]]:
    groups: dict[str, list[BatchItem]] = {}
    for item in items:
        groups.setdefault(item.session, []).append(item)
    return list(groups.values())


@dataclass
class BatchJob:
    """One batch run's items go through `run`; `backend_factory` loads the model (a
    module-level function, so that worker processes can be given it)."""

    settings: Settings
    sink: IO[str]
    memory: bool = True
    fail_fast: bool = False
    workers: int = 1
    parallel: int = 1  # lanes at once through one model (batch_lanes.py)
    progress: Callable[[], None] = lambda: None
    backend_factory: BackendFactory = create_backend
    # Runs first in each worker process (module-level, so it can be sent): the CLI passes the
    # printer of the memory layer's notices, which a spawned process does not inherit.
    worker_setup: Callable[[], object] | None = None
    approver: Approve | None = None  # asks about a tool call while approval is on (picklable, for workers)

    def run(self, items: list[BatchItem]) -> tuple[int, int]:
        """Answer `items`, one record each; returns (failed, written)."""
        if self.workers > 1 and len(session_groups(items)) > 1:
            return self._parallel(items)
        if self.parallel > 1:
            return self._lanes(items)
        return self._serial(items)

    def _runtime(self, items: list[BatchItem], factory: BackendFactory) -> Runtime:
        first = next((item for item in items if item.user is None), None)  # the runtime's agent: the data dir's
        return build_runtime(self.settings, session=first.session if first else None, memory=self.memory,
                             backend_factory=factory, approver=self.approver)

    def _serial(self, items: list[BatchItem]) -> tuple[int, int]:
        with self._runtime(items, self.backend_factory) as runtime:
            agents = BatchAgents(runtime, self.settings, self.approver)
            try:
                runner = BatchRunner(responder(agents, self.settings.generation()), self.sink,
                                     fail_fast=self.fail_fast)
                runner.run(items, progress=self.progress)
            finally:
                agents.close()
        return runner.failed, runner.written

    def _lanes(self, items: list[BatchItem]) -> tuple[int, int]:
        """Lanes of lines at once through one model that decodes them together."""
        by_namespace = self.memory and not self.settings.incognito
        factory = parallel_factory(self.backend_factory, self.parallel)
        with self._runtime(items, factory) as runtime:
            agents = BatchAgents(runtime, self.settings, self.approver)
            base = self.settings.generation()

            def answer(agent: Agent, item: BatchItem) -> tuple[bool, dict[str, Any]]:
                record = answer_record(item, lambda line: answer_with(runtime, agent, line, base))
                return record["error"] is not None, record

            # a model that takes one call at a time answers the lanes one after another
            parallel = self.parallel if runtime.backend.concurrent else 1
            run = ParallelRun(agents, answer, self._write_record, parallel=parallel, by_namespace=by_namespace,
                              fail_fast=self.fail_fast)
            try:
                good = [item for item in items if item.error is None]
                bad = [(item.line, answer_record(item, _never)) for item in items if item.error is not None]
                return run.run(good, bad)
            finally:
                agents.close()

    def _write_record(self, record: dict[str, Any]) -> None:
        self._write(json.dumps(record, ensure_ascii=False))

    def _parallel(self, items: list[BatchItem]) -> tuple[int, int]:
        """Sessions run in `workers` processes; a record is written once every earlier line's is."""
        order = [item.line for item in items]
        ready: dict[int, tuple[str, bool]] = {}
        failed = written = 0
        context = multiprocessing.get_context("spawn")
        initargs = (self.settings, self.memory, self.backend_factory, self.worker_setup, self.approver)
        with context.Pool(self.workers, initializer=_worker_start, initargs=initargs) as pool:
            run = functools.partial(_worker_run, fail_fast=self.fail_fast)
            for results in pool.imap_unordered(run, session_groups(items)):
                ready.update((line, (text, bad)) for line, text, bad in results)
                while written < len(order) and order[written] in ready:
                    text, bad = ready.pop(order[written])
                    self._write(text)
                    written += 1
                    failed += bad
                    if bad and self.fail_fast:
                        return failed, written
            pool.close()  # let the workers finish cleanly instead of being terminated
            pool.join()
        return failed, written

    def _write(self, text: str) -> None:
        self.sink.write(text + "\n")
        self.sink.flush()
        self.progress()


# -- in each worker process: one runtime, kept for every session it is given ------------------
_WORKER: dict[str, Any] = {}


def _worker_start(settings: Settings, memory: bool, backend_factory: BackendFactory,
                  setup: Callable[[], object] | None, approver: Approve | None = None) -> None:
    if setup is not None:
        setup()
    runtime = build_runtime(settings, memory=memory, backend_factory=backend_factory, approver=approver)
    _WORKER["runtime"] = runtime
    _WORKER["settings"] = settings
    _WORKER["approver"] = approver
    _WORKER["generation"] = settings.generation()
    # Free the models before the worker's interpreter shuts down (llama.cpp cannot after).
    multiprocessing.util.Finalize(runtime, runtime.close, exitpriority=10)


def _worker_run(group: list[BatchItem], fail_fast: bool) -> list[tuple[int, str, bool]]:
    """One session's lines, in order; returns (line, JSON record, failed) for each written."""
    sink = io.StringIO()
    agents = BatchAgents(_WORKER["runtime"], _WORKER["settings"], _WORKER["approver"])
    try:
        BatchRunner(responder(agents, _WORKER["generation"]), sink, fail_fast=fail_fast).run(group)
    finally:
        agents.close()
    records = [json.loads(text) for text in sink.getvalue().splitlines()]
    return [(r["line"], json.dumps(r, ensure_ascii=False), r["error"] is not None) for r in records]


def _never(item: BatchItem) -> tuple[TurnResult, dict[str, Any]]:
    raise AssertionError(f"line {item.line} has an error: it is not answered")
