"""`serve --parallel N`: a model that decodes several requests together gets N of them at once;
a memory namespace's work stays in order (a request recalls what every answer that ended
before it stored); one that takes one call at a time keeps one thread."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from local_agent.config import Settings
from local_agent.memory.sessions import Session, SessionStore
from local_agent.process.background import Background
from local_agent.turn.agent import Agent, MemoryParts
from local_agent.types import DistillResult, FactCandidate

from .fakes import ConcurrentEcho, ScriptedBackend
from .server_helpers import chat_body, running_server, server_settings


def test_requests_are_answered_together_by_a_model_that_decodes_them_together(tmp_path: Path) -> None:
    model = ConcurrentEcho(word_s=0.05)
    with running_server(server_settings(tmp_path / "data"), model, memory=False, parallel=4) as server:
        assert server.worker.threads == 4
        url = server.url + "/v1/chat/completions"

        def ask(n: int) -> str:
            reply = httpx.post(url, json=chat_body(f"question {n}"), timeout=60)
            assert reply.status_code == 200
            return reply.json()["choices"][0]["message"]["content"]

        with ThreadPoolExecutor(4) as pool:
            answers = list(pool.map(ask, range(4)))
    assert answers == [f"You said: question {n}" for n in range(4)]
    assert model.most_at_once >= 2


def test_a_model_that_takes_one_call_at_a_time_keeps_one_thread(tmp_path: Path) -> None:
    with running_server(server_settings(tmp_path / "data"), ScriptedBackend(), memory=False, parallel=4) as server:
        assert server.worker.threads == 1
        assert httpx.post(server.url + "/v1/chat/completions", json=chat_body("hi"), timeout=30).status_code == 200


def test_parallel_out_of_range_is_refused(tmp_path: Path) -> None:
    from local_agent.errors import ConfigError
    from local_agent.server.options import ServerOptions, check_options

    with pytest.raises(ConfigError, match="--parallel"):
        check_options(ServerOptions(parallel=0))


class SlowDistiller:
    """Saves "The user's name is <message>." after `delay` seconds."""

    def __init__(self, delay: float) -> None:
        self.delay = delay

    def distill(self, message: str, clauses: object = None) -> DistillResult:
        time.sleep(self.delay)
        return DistillResult(candidates=[FactCandidate(f"The user's name is {message}.", "rule", ("user", "name"))])


@pytest.mark.model
def test_a_namespace_recalls_what_an_answer_that_ended_before_it_stored(tmp_path: Path, store) -> None:
    """Two requests' agents share their namespace's memory-work thread: the second begins
    while the first one's memory work (a slow distillation) still runs, and recalls the fact it
    saved, as a request that began after it would."""
    shared = Background("memory-work-test")
    parts = MemoryParts(store=store, distiller=SlowDistiller(0.5))  # type: ignore[arg-type]
    settings = Settings(max_tokens=16, data_dir=tmp_path)

    def agent(name: str) -> Agent:
        return Agent(ConcurrentEcho(), SessionStore(tmp_path), Session(name=name), settings, memory=parts,
                     memory_worker=shared)

    first, second = agent("a"), agent("b")
    first.respond("Annabel")
    started = time.perf_counter()
    result = second.respond("What is my name?")
    assert time.perf_counter() - started >= 0.3  # it waited for the first one's memory work
    assert any("Annabel" in hit.record.text and hit.record.kind == "fact" for hit in result.recalled)
    first.close()
    second.close()
    assert shared.submit(lambda: "still serving").result() == "still serving"  # closing an agent leaves it
    shared.shutdown()


def test_agents_of_other_namespaces_do_not_wait_for_each_other(tmp_path: Path) -> None:
    blocker = threading.Event()
    one, two = Background("one"), Background("two")
    one.submit(blocker.wait)  # the first namespace's memory work hangs
    settings = Settings(max_tokens=16, data_dir=tmp_path)
    agent = Agent(ScriptedBackend(), SessionStore(tmp_path), Session(name="x"), settings, memory_worker=two)
    started = time.perf_counter()
    agent.respond("hello")
    assert time.perf_counter() - started < 2.0
    blocker.set()
    one.shutdown()
    two.shutdown()


def test_forget_all_waits_for_the_requests_under_way_and_holds_off_the_next(tmp_path: Path) -> None:
    """Forgetting everything closes every namespace's store: with requests answered at once it
    runs alone, after the ones under way and before those that came after it."""
    model = ConcurrentEcho(word_s=0.25)
    with running_server(server_settings(tmp_path / "data"), model, parallel=4) as server:
        url = server.url
        ended: dict[str, float] = {}

        def chat(name: str, text: str) -> int:
            reply = httpx.post(url + "/v1/chat/completions", json=chat_body(text),
                               headers={"X-Local-Agent-User": name}, timeout=60)
            ended[name] = time.monotonic()
            return reply.status_code

        def forget_all() -> int:
            reply = httpx.post(url + "/v1/local-agent/memories/forget-all",
                               json={"confirm": "forget everything"}, timeout=60)
            ended["forget"] = time.monotonic()
            return reply.status_code

        with ThreadPoolExecutor(3) as pool:
            first = pool.submit(chat, "ada", "My name is Ada and I live in Porto.")
            time.sleep(0.6)  # the first answer under way
            forgetting = pool.submit(forget_all)
            time.sleep(0.2)
            second = pool.submit(chat, "bo", "hi")
            assert (first.result(), forgetting.result(), second.result()) == (200, 200, 200)
        assert ended["ada"] < ended["forget"] < ended["bo"]
        assert model.most_at_once == 1
