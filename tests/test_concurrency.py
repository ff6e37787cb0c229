"""Several processes on one data dir at once: two add memories, one adds and forgets, one runs
agent turns (ScriptedBackend + real MemoryStore), one keeps reading. No lost write, no
corruption, and the reader never sees a partial state. Compaction is made frequent so that
readers and writers cross it often."""

from __future__ import annotations

import multiprocessing
import re
from pathlib import Path

import pytest

from local_agent.memory.index.embedder import Embedder
from local_agent.memory.store import MemoryStore, doctor

ADDS = 12
TURNS = 4
# what the writers, the forgetter and the agent store (the agent's answer is a turn memory too)
KNOWN = re.compile(r"^(writer [ab] fact \d+ about the garden|scratch \d+ to forget|turn \d+ in the kitchen|Noted\.)$")


def _small_compactions() -> None:
    from local_agent.memory.store import compaction

    compaction.JOURNAL_MIN_OPS = 5
    compaction.JOURNAL_SHARE = 0.0


def _writer(data_dir: str, name: str, start, results) -> None:
    _small_compactions()
    store = MemoryStore.open(Path(data_dir), Embedder())
    start.wait()
    ids = [store.add(f"writer {name} fact {n} about the garden", "fact").id for n in range(ADDS)]
    store.close()
    results[name] = ids


def _forgetter(data_dir: str, start, results) -> None:
    _small_compactions()
    store = MemoryStore.open(Path(data_dir), Embedder())
    start.wait()
    for n in range(ADDS // 2):
        store.forget(store.add(f"scratch {n} to forget", "fact").id)
    store.close()
    results["forgetter"] = True


def _agent(data_dir: str, start, results) -> None:
    from local_agent.config import Settings
    from local_agent.memory.sessions import Session, SessionStore
    from local_agent.turn.agent import Agent, MemoryParts
    from tests.fakes import ScriptedBackend

    _small_compactions()
    store = MemoryStore.open(Path(data_dir), Embedder())
    agent = Agent(ScriptedBackend(default="Noted."), SessionStore(Path(data_dir)), Session(name="kitchen"),
                  Settings(max_tokens=8), memory=MemoryParts(store=store))
    start.wait()
    errors = []
    for n in range(TURNS):
        result = agent.respond(f"turn {n} in the kitchen")
        errors.append(result.memory_work().error)
    agent.close()
    store.close()
    results["agent"] = errors


def _reader(data_dir: str, start, stop, results) -> None:
    _small_compactions()
    embedder = Embedder()
    store = MemoryStore.open(Path(data_dir), embedder)
    start.wait()
    seen_writes: set[str] = set()
    problems: list[str] = []
    reads = 0
    while not stop.is_set() or reads < 3:
        fresh = reads % 4 == 3  # sometimes a whole new open, racing compactions
        view = MemoryStore.open(Path(data_dir), embedder) if fresh else store
        records = view.records()
        ids = [r.id for r in records]
        if len(ids) != len(set(ids)):
            problems.append("duplicate ids")
        problems += [f"unknown text {r.text!r}" for r in records if not KNOWN.match(r.text)]
        writes = {r.id for r in records if r.text.startswith("writer")}
        if not seen_writes <= writes:
            problems.append(f"writes disappeared: {sorted(seen_writes - writes)}")
        seen_writes |= writes
        view.recall("garden", k=3)
        if fresh:
            view.close()
        reads += 1
    store.close()
    results["reader"] = (reads, problems)


@pytest.mark.slow
def test_processes_sharing_a_data_dir(tmp_path: Path) -> None:
    data_dir = str(tmp_path / "data")
    with MemoryStore.open(Path(data_dir), Embedder()):
        pass
    context = multiprocessing.get_context("spawn")
    with context.Manager() as manager:
        start, stop, results = manager.Barrier(5), manager.Event(), manager.dict()
        workers = [
            context.Process(target=_writer, args=(data_dir, "a", start, results)),
            context.Process(target=_writer, args=(data_dir, "b", start, results)),
            context.Process(target=_forgetter, args=(data_dir, start, results)),
            context.Process(target=_agent, args=(data_dir, start, results)),
        ]
        reader = context.Process(target=_reader, args=(data_dir, start, stop, results))
        for process in [*workers, reader]:
            process.start()
        for process in workers:
            process.join(timeout=240)
        stop.set()
        reader.join(timeout=120)
        assert all(p.exitcode == 0 for p in [*workers, reader]), [p.exitcode for p in [*workers, reader]]
        outcome = dict(results)
    reads, problems = outcome["reader"]
    assert problems == [] and reads >= 3
    assert outcome["agent"] == [None] * TURNS
    assert doctor(Path(data_dir)) == []
    with MemoryStore.open(Path(data_dir), Embedder()) as store:
        records = store.records(kind=None)
        by_text = {r.text: r for r in records}
        assert {r.id for r in records} >= set(outcome["a"]) | set(outcome["b"])  # no lost write
        assert not [t for t in by_text if t.startswith("scratch")]  # every forget held
        assert sorted(t for t in by_text if t.startswith("turn")) == [f"turn {n} in the kitchen" for n in range(TURNS)]
        assert len([r for r in records if r.provenance.role != "assistant"]) == 2 * ADDS + TURNS
