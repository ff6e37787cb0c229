"""One model, FIFO: a client that leaves stops its generation and the next request starts at
once, and its turn is not stored; a full queue answers 429; SIGTERM lets what is in flight
finish."""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import httpx
import numpy as np
import pytest

from .fakes import ScriptedBackend
from .reliability import HashEmbedder
from .server_helpers import SlowBackend, chat_body, running_server, server_settings, start_process


@pytest.fixture
def slow() -> SlowBackend:
    return SlowBackend(words=200, delay=0.05)  # 10 s when not stopped


def _wait_for(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def test_a_client_that_disconnects_stops_its_generation(slow: SlowBackend, tmp_path: Path) -> None:
    with running_server(server_settings(tmp_path / "data"), slow, memory=False) as server:
        with httpx.stream("POST", server.url + "/v1/chat/completions", json=chat_body("long", stream=True)) as stream:
            seen = 0
            for line in stream.iter_lines():
                seen += line.startswith("data: ")
                if seen >= 4:
                    break
        _wait_for(lambda: len(slow.runs) == 1)
        assert slow.runs[0] < 50, f"the generation went on after the client left: {slow.runs}"
        slow.words = 3
        started = time.monotonic()
        reply = httpx.post(server.url + "/v1/chat/completions", json=chat_body("next"), timeout=30)
        assert reply.status_code == 200 and reply.json()["choices"][0]["message"]["content"] == "w0 w1 w2"
        assert time.monotonic() - started < 2.0


def test_a_non_streamed_request_whose_client_leaves_stops_too(slow: SlowBackend, tmp_path: Path) -> None:
    with running_server(server_settings(tmp_path / "data"), slow, memory=False) as server:
        with pytest.raises(httpx.ReadTimeout):
            httpx.post(server.url + "/v1/chat/completions", json=chat_body("long"), timeout=0.8)
        _wait_for(lambda: len(slow.runs) == 1)
        assert slow.runs[0] < 100


def test_a_full_queue_gives_429(slow: SlowBackend, tmp_path: Path) -> None:
    with running_server(server_settings(tmp_path / "data"), slow, memory=False, max_queue=1) as server:
        url = server.url + "/v1/chat/completions"
        with httpx.stream("POST", url, json=chat_body("first", stream=True)) as first:
            lines = first.iter_lines()  # kept: dropping the iterator closes the connection
            next(lines)  # it is being served
            waiting: list[httpx.Response] = []
            second = threading.Thread(target=lambda: waiting.append(httpx.post(url, json=chat_body("2"), timeout=60)))
            second.start()
            _wait_for(lambda: httpx.get(server.url + "/health").json()["waiting"] == 1)
            third = httpx.post(url, json=chat_body("third"))
            assert third.status_code == 429
            assert third.json()["error"]["code"] == "queue_full" and third.headers["retry-after"] == "1"
            slow.words = 2
        second.join(60)
        assert waiting and waiting[0].status_code == 200  # the waiting request was served, in turn


def test_503_while_the_model_loads(tmp_path: Path) -> None:
    from local_agent.backends.base import Backend
    from local_agent.backends.probe import BackendChoice
    from local_agent.config import Settings
    from local_agent.server.options import ServerOptions
    from local_agent.server.run import LocalServer

    gate = threading.Event()
    backend = SlowBackend(words=1, delay=0)

    def slow_load(settings: Settings, *, model: str | None = None) -> tuple[Backend, BackendChoice]:
        gate.wait(30)
        return backend, BackendChoice(backend="slow", device="cpu", reason="test")

    server = LocalServer(server_settings(tmp_path / "data"), ServerOptions(port=0, memory=False),
                         backend_factory=slow_load)
    server.bind()
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        _wait_for(lambda: _answers(server.url))
        response = httpx.post(server.url + "/v1/chat/completions", json=chat_body("hi"))
        assert response.status_code == 503 and response.json()["error"]["code"] == "loading"
        gate.set()
        _wait_for(lambda: httpx.get(server.url + "/v1/models").status_code == 200)
    finally:
        gate.set()
        server.stop()
        thread.join(30)


def _answers(url: str) -> bool:
    try:
        return httpx.get(url + "/health").status_code == 200
    except httpx.HTTPError:
        return False


def test_sigterm_lets_the_request_in_flight_finish(tmp_path: Path) -> None:
    process, url = start_process(tmp_path / "data")
    try:
        with httpx.stream("POST", url + "/v1/chat/completions", json=chat_body("My name is Ada.", stream=True),
                          timeout=60) as stream:
            lines = stream.iter_lines()
            next(lines)
            process.send_signal(signal.SIGTERM)
            rest = [line for line in lines if line.startswith("data: ")]
        assert rest[-1] == "data: [DONE]"
        assert process.wait(60) == 0
    finally:
        if process.poll() is None:
            process.kill()
    assert not (tmp_path / "data" / "server.sock").exists()


class SlowBatchEmbedder(HashEmbedder):
    """Embeds a batch of two or more texts (a turn being stored; never a recall query)
    `delay` seconds late: the memory work after an answer takes that long."""

    def __init__(self, delay: float) -> None:
        self.delay = delay

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if len(texts) >= 2:
            time.sleep(self.delay)
        return super().embed(texts)


@pytest.fixture
def slow_memory_work(monkeypatch: pytest.MonkeyPatch) -> SlowBatchEmbedder:
    import local_agent.app as app

    embedder = SlowBatchEmbedder(delay=2.0)
    monkeypatch.setattr(app, "open_embedder", lambda settings: embedder)
    return embedder


def _stored(url: str) -> list[str]:
    """Every memory of the server's own namespace, once the request before has finished (one
    model, first come first served: this request waits for it)."""
    httpx.post(url + "/v1/chat/completions", json=chat_body("ping", memory=False), timeout=30).raise_for_status()
    return [r["text"] for r in httpx.get(url + "/v1/memories", params={"kind": "all"}, timeout=30).json()["data"]]


def test_a_non_streamed_request_whose_client_left_during_its_memory_work_stores_nothing(
        slow_memory_work: SlowBatchEmbedder, tmp_path: Path) -> None:
    """Issue 23, item 3: the client of a non-streamed request gets nothing before the memory
    work is done; one that gave up by then never had the answer, so nothing is kept."""
    with running_server(server_settings(tmp_path / "data"), ScriptedBackend(default="Noted.")) as server:
        with pytest.raises(httpx.ReadTimeout):
            httpx.post(server.url + "/v1/chat/completions", json=chat_body("I keep bees in my garden."), timeout=1.0)
        assert _stored(server.url) == []
        slow_memory_work.delay = 0.0
        kept = httpx.post(server.url + "/v1/chat/completions", json=chat_body("I keep bees in my garden."), timeout=30)
        assert kept.status_code == 200 and "I keep bees in my garden." in _stored(server.url)


def test_a_stream_whose_client_left_before_its_end_stores_nothing(slow_memory_work: SlowBatchEmbedder,
                                                                   tmp_path: Path) -> None:
    with running_server(server_settings(tmp_path / "data"), ScriptedBackend(default="Noted.")) as server:
        with httpx.stream("POST", server.url + "/v1/chat/completions", timeout=30,
                          json=chat_body("I keep bees in my garden.", stream=True)) as stream:
            lines = stream.iter_lines()
            while "Noted." not in next(lines):  # the whole answer came; its final chunk waits
                pass
        assert _stored(server.url) == []
