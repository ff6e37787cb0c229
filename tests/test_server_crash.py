"""SIGKILL of the server while it writes memories loses nothing it acknowledged, and the store
opens cleanly after a restart (the store's own crash harness is test_crash.py)."""

from __future__ import annotations

import itertools
import random
import signal
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, cast

import httpx
import pytest

from local_agent.memory.store import MemoryStore, doctor

from .reliability import HashEmbedder
from .server_helpers import start_process

if TYPE_CHECKING:
    from local_agent.memory.index.embedder import Embedder

ROUNDS = 3


def _hash_embedder() -> Embedder:
    return cast("Embedder", HashEmbedder())  # the file layer is under test, not recall


def _writer(url: str, round_number: int, kind: str, acked: set[str], stop: threading.Event) -> None:
    """Add memories until the server dies; keep the id of every one the server acknowledged."""
    with httpx.Client(base_url=url, timeout=30) as client:
        for item in itertools.count():
            if stop.is_set():
                return
            try:
                if kind == "rest":
                    response = client.post("/v1/memories", json={"text": f"Round {round_number} fact {item}."})
                    if response.status_code == 200:
                        acked.add(response.json()["id"])
                else:
                    body = {"messages": [{"role": "user", "content": f"I live in Town{round_number}x{item}."}]}
                    response = client.post("/v1/chat/completions", json=body)
                    if response.status_code == 200:
                        acked.update(saved["id"] for saved in response.json()["local_agent"]["saved"])
            except httpx.HTTPError:
                return  # the server is gone


def _check(data_dir: Path, acked: set[str]) -> None:
    assert doctor(data_dir) == []
    with MemoryStore.open(data_dir, _hash_embedder()) as store:
        ids = {record.id for record in store.records(kind=None, include_inactive=True)}
    missing = acked - ids
    assert not missing, f"acknowledged memories lost: {sorted(missing)[:5]}"


@pytest.mark.slow
def test_sigkill_during_memory_writes_loses_no_acknowledged_memory(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    rng = random.Random(15)
    acked: set[str] = set()
    for round_number in range(ROUNDS):
        process, url = start_process(data_dir, hash_embedder=True)
        listed = httpx.get(url + "/v1/memories", params={"kind": "all"}).json()["data"]
        assert acked <= {record["id"] for record in listed} | _superseded(data_dir), "the restart lost memories"
        stop = threading.Event()
        threads = [threading.Thread(target=_writer, args=(url, round_number, kind, acked, stop))
                   for kind in ("rest", "chat")]
        for thread in threads:
            thread.start()
        time.sleep(rng.uniform(0.8, 2.0))
        process.send_signal(signal.SIGKILL)
        process.wait(30)
        stop.set()
        for thread in threads:
            thread.join(30)
        _check(data_dir, acked)
    assert len(acked) > 3 * ROUNDS, "too few writes were acknowledged to test anything"


def _superseded(data_dir: Path) -> set[str]:
    with MemoryStore.open(data_dir, _hash_embedder()) as store:
        return {record.id for record in store.records(kind=None, include_inactive=True) if not record.active}
