"""Bad input gets a 4xx JSON error, never a 500 or a traceback, and loses nothing: fixed cases
and hypothesis-made request bodies against a real server."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from local_agent.memory.store import doctor
from local_agent.server.run import LocalServer

from .fakes import ScriptedBackend
from .server_helpers import running_server, server_settings

HEADERS = {"Content-Type": "application/json"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalServer]:
    data_dir = tmp_path_factory.mktemp("fuzz") / "data"
    with running_server(server_settings(data_dir), ScriptedBackend(default="Fuzzed answer.")) as running:
        yield running


def post(server: LocalServer, body: bytes, path: str = "/v1/chat/completions") -> httpx.Response:
    return httpx.post(server.url + path, content=body, headers=HEADERS, timeout=60)


def check_answer(response: httpx.Response) -> None:
    """A success is a completion; anything else a 4xx with OpenAI's error shape."""
    assert "Traceback" not in response.text
    if response.status_code == 200:
        assert isinstance(response.json()["choices"][0]["message"]["content"], str)
        return
    assert 400 <= response.status_code < 500, (response.status_code, response.text[:300])
    error = response.json()["error"]
    assert isinstance(error["message"], str) and error["message"]


def user(text: Any) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": text}], "memory": False}


BAD = {
    "malformed JSON": b'{"messages": [',
    "not an object": b"[1, 2, 3]",
    "empty body": b"",
    "messages not a list": json.dumps({"messages": "hi"}).encode(),
    "no messages": json.dumps({"messages": []}).encode(),
    "content a number": json.dumps(user(5)).encode(),
    "unknown role": json.dumps({"messages": [{"role": "wizard", "content": "hi"}]}).encode(),
    "tool role": json.dumps({"messages": [{"role": "tool", "content": "hi"}]}).encode(),
    "ends with assistant": json.dumps({"messages": [{"role": "user", "content": "a"},
                                                    {"role": "assistant", "content": "b"}]}).encode(),
    "empty user message": json.dumps(user("   ")).encode(),
    "image part": json.dumps(user([{"type": "image_url", "image_url": {"url": "x"}}])).encode(),
    "invalid UTF-8": b'{"messages": [{"role": "user", "content": "\xff\xfe"}]}',
    "lone surrogate": b'{"messages": [{"role": "user", "content": "\\ud800"}]}',
    "huge max_tokens": json.dumps({**user("hi"), "max_tokens": 10**12}).encode(),
    "enormous max_tokens": json.dumps({**user("hi"), "max_tokens": 10**40}).encode(),
    "max_tokens zero": json.dumps({**user("hi"), "max_tokens": 0}).encode(),
    "temperature a string": json.dumps({**user("hi"), "temperature": "hot"}).encode(),
    "top_p out of range": json.dumps({**user("hi"), "top_p": 7}).encode(),
    "too many stops": json.dumps({**user("hi"), "stop": ["a", "b", "c", "d", "e"]}).encode(),
    "1 MB message": json.dumps(user("x" * 1_000_000)).encode(),
    "deeply nested": b'{"messages": ' + b"[" * 50_000 + b"]" * 50_000 + b"}",
    "memory not a bool": json.dumps({**user("hi"), "memory": "perhaps"}).encode(),
}


@pytest.mark.parametrize("name", list(BAD))
def test_bad_input_is_a_4xx_json_error(server: LocalServer, name: str) -> None:
    response = post(server, BAD[name])
    assert 400 <= response.status_code < 500, (name, response.status_code, response.text[:200])
    check_answer(response)


@pytest.mark.parametrize(("path", "body"), [
    ("/v1/embeddings", {"input": []}), ("/v1/embeddings", {"input": [1, 2]}), ("/v1/embeddings", {"input": ""}),
    ("/v1/memories", {"text": ""}), ("/v1/memories", {"text": 5}), ("/v1/memories", {"text": "x" * 20_000}),
    ("/v1/memories/search", {"query": ""}), ("/v1/memories/search", {"query": "a", "limit": -1}),
    ("/v1/local-agent/ask", {"message": ""}), ("/v1/local-agent/ask", {"message": "hi", "settings": []}),
])
def test_bad_input_elsewhere_is_a_4xx_json_error(server: LocalServer, path: str, body: dict) -> None:
    check_answer(response := post(server, json.dumps(body).encode(), path))
    assert response.status_code != 200


JSON_SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=40)
JSON = st.recursive(JSON_SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
    st.text(max_size=10), inner, max_size=3), max_leaves=8)
ROLES = st.sampled_from(["system", "developer", "user", "assistant", "tool", "function", "", "User"])
CONTENT = st.text(max_size=200) | st.lists(st.fixed_dictionaries(
    {"type": st.sampled_from(["text", "image_url", "x"]), "text": st.text(max_size=30)}), max_size=2) | JSON
MESSAGE = st.fixed_dictionaries({"role": ROLES | JSON, "content": CONTENT}) | JSON
FIELDS = {
    "model": st.sampled_from(["scripted", "gpt-4"]) | JSON, "max_tokens": st.integers(-5, 5000) | JSON,
    "temperature": st.floats(-1, 3, allow_nan=False) | JSON, "top_p": st.floats(-1, 2, allow_nan=False),
    "seed": st.integers() | JSON, "stop": st.text(max_size=5) | st.lists(st.text(max_size=5), max_size=6),
    "stream": st.booleans() | JSON, "n": st.integers(-1, 3), "logprobs": st.booleans(), "tools": JSON,
    "user": st.text(max_size=70) | JSON, "memory": st.booleans() | JSON, "stream_options": JSON,
    "response_format": JSON,
}
BODY = st.fixed_dictionaries({"messages": st.lists(MESSAGE, max_size=4) | JSON},
                             optional=FIELDS) | JSON


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow])
@given(body=BODY)
def test_fuzzed_bodies_never_fail_the_server(server: LocalServer, body: Any) -> None:
    response = post(server, json.dumps(body).encode())
    check_answer(response)


def test_nothing_was_lost(server: LocalServer) -> None:
    """After all of the above, the store opens cleanly and holds what was sent with memory on."""
    response = post(server, json.dumps({"messages": [{"role": "user", "content": "My name is Zed."}]}).encode())
    assert response.status_code == 200
    assert doctor(server.settings.data_dir) == []
    listed = httpx.get(server.url + "/v1/memories").json()["data"]
    assert "The user's name is Zed." in [record["text"] for record in listed]
