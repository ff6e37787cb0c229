"""Crash safety: SIGKILL a process that is writing memories at random moments, many times.

The parent imports and warms everything once, then forks a writer per round. The writer
acknowledges each completed add on a pipe; the parent kills it after a random delay (during
appends, during compactions, during forgets), reopens the store and checks that every
acknowledged memory is there, that no record is half-written and that it opens without repair.
"""

from __future__ import annotations

import json
import os
import random
import re
import signal
import threading
import time
from pathlib import Path

import numpy as np
import pytest
import tqdm

from local_agent.memory.store import MemoryStore, compaction, doctor
from local_agent.types import MemoryDraft

from .reliability import HashEmbedder

ROUNDS = int(os.environ.get("CRASH_ROUNDS", "200"))
# The writer's first line: the store is open. Half the rounds start their kill delay from it, so
# that a loaded machine, where opening is slow, still kills many writers mid-write; the other
# half are killed from the fork on, opening (and the repairs an open may do) included.
READY = b"ready\n"
TEXT = re.compile(r"^(round \d+ item \d+ about the garden( and more)*|scratch \d+ \d+ to forget)$")


def _text(round_number: int, item: int) -> str:
    return f"round {round_number} item {item} about the garden" + " and more" * (item % 7)


def _writer(data_dir: Path, round_number: int, write_fd: int) -> None:
    """The child: add memories forever, acknowledging each id once add() has returned.
    Every third round forgets a few of its own unacknowledged extras (a full rewrite)."""
    store = MemoryStore.open(data_dir, HashEmbedder())
    os.write(write_fd, READY)
    item = 0
    while True:
        if round_number % 3 == 2:
            items = [MemoryDraft(_text(round_number, item + n), "fact") for n in range(3)]
            records = store.add_many(items)
            item += 3
        else:
            records = [store.add(_text(round_number, item), "fact")]
            item += 1
        if round_number % 4 == 1 and item % 5 == 0:
            extra = store.add(f"scratch {round_number} {item} to forget", "fact")
            store.forget(extra.id)
        os.write(write_fd, "".join(r.id + "\n" for r in records).encode())


def _acknowledged(read_fd: int) -> list[str]:
    data = b""
    while chunk := os.read(read_fd, 65536):
        data += chunk
    lines = data.decode().removeprefix(READY.decode()).split("\n")
    return [line for line in lines if line]  # a torn id has no newline yet


def _run_round(data_dir: Path, round_number: int, delay: float) -> list[str]:
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child never returns
        try:
            os.close(read_fd)
            _writer(data_dir, round_number, write_fd)
        finally:
            os._exit(1)
    os.close(write_fd)
    if round_number % 2 == 0:  # the delay runs from the store's opening, however slow it is under load
        os.read(read_fd, len(READY))
    time.sleep(delay)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    acked = _acknowledged(read_fd)
    os.close(read_fd)
    return acked


def _left_mid_compaction(folder: Path) -> bool:
    """A kill inside a compaction leaves a temp file, two vector files, or a journal of an
    older generation than the snapshot."""
    names = [p.name for p in folder.iterdir()]
    if any(n.endswith(".tmp") for n in names) or sum(n.startswith("vectors-") for n in names) > 1:
        return True
    journal = folder / "journal.jsonl"
    snapshot = folder / "memories.json"
    if not journal.is_file() or not snapshot.is_file():
        return False
    head = json.loads(journal.read_bytes().split(b"\n", 1)[0] or b"{}")
    return head.get("generation") != json.loads(snapshot.read_bytes()).get("generation")


def _check_store(data_dir: Path, embedder: HashEmbedder, acked: set[str]) -> int:
    problems = doctor(data_dir)
    assert problems == [], problems
    with MemoryStore.open(data_dir, embedder) as store:  # opens without any manual repair
        records = store.records()
        ids = [record.id for record in records]
        assert len(ids) == len(set(ids))
        missing = acked - set(ids)
        assert not missing, f"acknowledged memories lost: {sorted(missing)[:5]}"
        for record in records:
            assert TEXT.match(record.text), f"half-written record: {record.text!r}"
        sample = [r for r in records if r.id in acked][-3:]
        for record in sample:  # its vector is whole: the record is its own nearest neighbour
            hit = store.nearest(record.text, k=1)[0]
            assert hit.record.id == record.id and hit.score == pytest.approx(1.0, abs=1e-4)
        return len(records)


@pytest.fixture(autouse=True)
def tqdm_thread_locks(monkeypatch: pytest.MonkeyPatch) -> None:
    """tqdm (used by bm25s even with progress off) guards its bars with a multiprocessing lock
    that a fork shares: a writer killed while holding it would hang this process. Every tqdm
    class, including subclasses that made their own lock earlier in the session, gets a
    thread lock instead, which a fork copies."""
    classes = [tqdm.std.tqdm]
    while classes:
        cls = classes.pop()
        monkeypatch.setattr(cls, "_lock", threading.RLock(), raising=False)
        classes.extend(cls.__subclasses__())


@pytest.mark.slow
def test_sigkill_while_writing_never_loses_an_acknowledged_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    # Compact often, so that many kills land in the middle of a compaction.
    monkeypatch.setattr(compaction, "JOURNAL_MIN_OPS", 6)
    monkeypatch.setattr(compaction, "JOURNAL_SHARE", 0.0)
    data_dir = tmp_path / "data"
    embedder = HashEmbedder()
    MemoryStore.open(data_dir, embedder).close()  # warm: imports, FAISS, the folder
    rng = random.Random(7)
    acked: set[str] = set()
    started = time.monotonic()
    mid_compaction = 0
    for round_number in range(ROUNDS):
        acked.update(_run_round(data_dir, round_number, rng.uniform(0.0, 0.12)))
        mid_compaction += _left_mid_compaction(data_dir / "memory")
        _check_store(data_dir, embedder, acked)
    elapsed = time.monotonic() - started
    assert len(acked) > ROUNDS, "the writer was killed before it could acknowledge much"
    with MemoryStore.open(data_dir, embedder) as store:
        store.compact()  # the next compaction cleans up what cut-short ones left behind
    assert len(list((data_dir / "memory").glob("vectors-*.npy"))) == 1
    assert not list((data_dir / "memory").glob(".*.tmp"))
    capfd.readouterr()
    print(f"{ROUNDS} kills in {elapsed:.1f}s, {len(acked)} acknowledged memories, "
          f"{mid_compaction} kills inside a compaction")
    assert mid_compaction > 0 or ROUNDS < 50


def test_a_killed_compaction_keeps_the_journal_usable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A writer killed right after a new snapshot is written, before the journal is reset:
    the old journal belongs to an older generation and must not be replayed twice."""
    data_dir = tmp_path / "data"
    embedder = HashEmbedder()
    with MemoryStore.open(data_dir, embedder) as store:
        first = [store.add(_text(0, n), "fact").id for n in range(4)]

    pid = os.fork()
    if pid == 0:  # pragma: no cover
        def die(*args, **kwargs):
            os.kill(os.getpid(), signal.SIGKILL)

        compaction.create_journal = die  # the snapshot and vectors are written, then the kill
        try:
            with MemoryStore.open(data_dir, embedder) as child:
                child.compact()
        finally:
            os._exit(1)
    _, status = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(status)
    with MemoryStore.open(data_dir, embedder) as store:
        assert [r.id for r in store.records()] == first
        store.add(_text(0, 9), "fact")
    with MemoryStore.open(data_dir, embedder) as store:
        assert len(store.records()) == 5
    assert doctor(data_dir) == []
    assert np.load(next((data_dir / "memory").glob("vectors-*.npy"))).shape[1] == embedder.dimension
