"""Every route picks the namespace one way: `X-Local-Agent-User`, or the body's `user` where the
route has a body, both checked alike (issue 23, item 2). The memory routes ignored the body's
`user`: a fact went into the owner's memory, a search read the owner's, and `"user": "../x"` got
200 where chat gave 400. And a remembered fact is dated by --today (issue 26)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from local_agent.config import CHECKOUT_MODELS_DIR
from local_agent.memory.index.gguf_embedder import memory_embedder
from local_agent.memory.store import MemoryStore
from local_agent.server.discovery import ASK_PATH
from local_agent.server.run import LocalServer

from .fakes import ScriptedBackend
from .server_helpers import chat_body, running_server, server_settings

TODAY = "2026-03-11"
BAD_NAME = "../x"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalServer]:
    data_dir = tmp_path_factory.mktemp("namespaces") / "data"
    with running_server(server_settings(data_dir, today=TODAY), ScriptedBackend(default="Scripted answer.")) as served:
        yield served


def _listed(server: LocalServer, namespace: str | None) -> list[str]:
    headers = {"X-Local-Agent-User": namespace} if namespace else {}
    response = httpx.get(server.url + "/v1/memories", headers=headers)
    assert response.status_code == 200, response.text
    return [record["text"] for record in response.json()["data"]]


def _found(server: LocalServer, body: dict[str, Any], headers: dict[str, str] | None = None) -> list[str]:
    response = httpx.post(server.url + "/v1/memories/search", json=body, headers=headers)
    assert response.status_code == 200, response.text
    return [hit["text"] for hit in response.json()["data"]]


def test_adding_a_memory_honours_the_body_user(server: LocalServer) -> None:
    added = httpx.post(server.url + "/v1/memories", json={"text": "The user keeps goats.", "user": "bob"})
    assert added.status_code == 200, added.text
    assert _listed(server, "bob") == ["The user keeps goats."]
    assert "The user keeps goats." not in _listed(server, None)


def test_searching_honours_the_body_user(server: LocalServer) -> None:
    added = httpx.post(server.url + "/v1/memories", json={"text": "The user plays the oboe."},
                       headers={"X-Local-Agent-User": "carol"})
    assert added.status_code == 200, added.text
    assert _found(server, {"query": "oboe", "user": "carol"}) == ["The user plays the oboe."]
    assert _found(server, {"query": "oboe", "user": "dave"}) == []
    assert _found(server, {"query": "oboe"}) == []  # the owner's memory holds no oboe


@pytest.mark.parametrize(("path", "body"), [
    ("/v1/memories", {"text": "The user keeps bees."}),
    ("/v1/memories/search", {"query": "bees"}),
    ("/v1/chat/completions", chat_body("hi")),
], ids=["add", "search", "chat"])
def test_a_bad_body_user_is_400_on_every_route_with_a_body(server: LocalServer, path: str,
                                                           body: dict[str, Any]) -> None:
    response = httpx.post(server.url + path, json={**body, "user": BAD_NAME})
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] == "invalid_namespace" and error["param"] == "user"
    assert not (Path(server.settings.data_dir).parent / "x").exists()


@pytest.mark.parametrize(("method", "path", "body"), [
    ("GET", "/v1/memories", None),
    ("POST", "/v1/memories", {"text": "The user keeps bees."}),
    ("POST", "/v1/memories/search", {"query": "bees"}),
    ("DELETE", "/v1/memories/abcd1234", None),
    ("POST", "/v1/chat/completions", chat_body("hi")),
], ids=["list", "add", "search", "forget", "chat"])
def test_a_bad_header_is_400_on_every_route(server: LocalServer, method: str, path: str,
                                            body: dict[str, Any] | None) -> None:
    response = httpx.request(method, server.url + path, json=body, headers={"X-Local-Agent-User": BAD_NAME})
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] == "invalid_namespace" and error["param"] == "X-Local-Agent-User"


@pytest.mark.parametrize(("path", "body"), [
    ("/v1/memories", {"text": "The user keeps bees."}),
    ("/v1/memories/search", {"query": "bees"}),
    ("/v1/chat/completions", chat_body("hi")),
], ids=["add", "search", "chat"])
def test_header_and_body_naming_two_namespaces_is_400(server: LocalServer, path: str, body: dict[str, Any]) -> None:
    response = httpx.post(server.url + path, json={**body, "user": "erin"}, headers={"X-Local-Agent-User": "frank"})
    assert response.status_code == 400, response.text
    assert response.json()["error"]["code"] == "invalid_namespace"
    assert not (Path(server.settings.data_dir) / "users" / "erin").exists()
    assert not (Path(server.settings.data_dir) / "users" / "frank").exists()


@pytest.mark.parametrize(("path", "body"), [
    ("/v1/memories", {"text": "The user keeps bees."}),
    ("/v1/memories/search", {"query": "bees"}),
], ids=["add", "search"])
def test_header_and_body_naming_the_same_namespace_agree(server: LocalServer, path: str,
                                                         body: dict[str, Any]) -> None:
    response = httpx.post(server.url + path, json={**body, "user": "gina"}, headers={"X-Local-Agent-User": "gina"})
    assert response.status_code == 200, response.text
    assert (Path(server.settings.data_dir) / "users" / "gina" / "memory").is_dir()


@pytest.mark.parametrize("how", ["header", "body"])
def test_the_warm_ask_refuses_a_namespace(server: LocalServer, how: str) -> None:
    """The warm ask is the CLI's own, in the default memory: a namespace it cannot honour is
    refused rather than ignored (it wrote into the owner's memory)."""
    body: dict[str, Any] = {"message": "My name is Hal."}
    headers = {"X-Local-Agent-User": "hal"} if how == "header" else {}
    if how == "body":
        body["user"] = "hal"
    response = httpx.post(server.url + ASK_PATH, json=body, headers=headers)
    assert response.status_code == 400, response.text
    assert response.json()["error"]["code"] == "invalid_namespace"
    assert not (Path(server.settings.data_dir) / "users" / "hal").exists()


def test_a_fact_added_over_http_has_the_stated_provenance_dated_by_today(server: LocalServer) -> None:
    """The server dated it with time.strftime and ignored --today."""
    added = httpx.post(server.url + "/v1/memories", json={"text": "The user  keeps  snails."},
                       headers={"X-Local-Agent-User": "ivy"})
    assert added.status_code == 200, added.text
    embedder = memory_embedder(CHECKOUT_MODELS_DIR, "cpu")  # opening reads no vector: nothing loads
    with MemoryStore.open(Path(server.settings.data_dir) / "users" / "ivy", embedder) as store:
        record = store.get(added.json()["id"])
    assert record.text == "The user keeps snails."
    assert record.provenance.to_dict() == {"role": "user", "source_text": "The user keeps snails.",
                                           "date": f"{TODAY}T12:00", "via": "api"}
    assert record.decision == {"route": "user"}
