"""Issue 23, item 5: every error that docs/server.md lists, in OpenAI's shape, with its message
and param in the API's own terms (`stop[0]`, `messages[0].content`) and nothing of the
validation library; types as strict as OpenAI's (`"max_tokens": true` or `"8"` is a 400)."""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from local_agent.backends.base import Backend
from local_agent.backends.probe import BackendChoice
from local_agent.config import Settings
from local_agent.server.errors import TYPES
from local_agent.server.options import ServerOptions
from local_agent.server.run import LocalServer

from .server_helpers import ROOT, SlowBackend, chat_body, running_server, server_settings

KEY = "errors-key-0123456789"
AUTH = {"Authorization": f"Bearer {KEY}"}
MAX_BODY = 8192
INTERNALS = re.compile(r"function-after|_encodable|Input should|after validation|Value error|Field required|"
                       r"pydantic|validation error|\b(?:str|int|list|literal)\[|type=", re.IGNORECASE)


@dataclass(frozen=True)
class Case:
    """A request the docs say is refused: what to send, and the status, code and param expected."""

    status: int
    code: str | None
    param: str | None
    body: Any = None  # JSON, or bytes sent as they are
    path: str = "/v1/chat/completions"
    method: str = "POST"
    headers: dict[str, str] = field(default_factory=dict)


def _chat(**extra: Any) -> dict[str, Any]:
    return chat_body("hi", **{"memory": False, **extra})


def _messages(*messages: dict[str, Any]) -> dict[str, Any]:
    return {"messages": list(messages), "memory": False}


CASES: dict[str, Case] = {
    # 400: bad input, said in the API's terms
    "stop holds an empty string": Case(400, "invalid_request", "stop[0]", _chat(stop=[""])),
    "stop is a number": Case(400, "invalid_request", "stop", _chat(stop=3)),
    "more than 4 stops": Case(400, "unsupported", "stop", _chat(stop=["a", "b", "c", "d", "e"])),
    "max_tokens is true": Case(400, "invalid_request", "max_tokens", _chat(max_tokens=True)),
    "max_tokens is a string": Case(400, "invalid_request", "max_tokens", _chat(max_tokens="8")),
    "max_tokens is a fraction": Case(400, "invalid_request", "max_tokens", _chat(max_tokens=8.5)),
    "max_tokens is zero": Case(400, "invalid_request", "max_tokens", _chat(max_tokens=0)),
    "max_tokens fills the context": Case(400, "context_length_exceeded", "max_tokens", _chat(max_tokens=2048)),
    "temperature is a string": Case(400, "invalid_request", "temperature", _chat(temperature="0.5")),
    "temperature over 2": Case(400, "invalid_request", "temperature", _chat(temperature=3)),
    "stream is a number": Case(400, "invalid_request", "stream", _chat(stream=1)),
    "memory is a string": Case(400, "invalid_request", "memory", _chat(memory="no")),
    "include_usage is a string": Case(400, "invalid_request", "stream_options.include_usage",
                                      _chat(stream_options={"include_usage": "yes"})),
    "no messages field": Case(400, "invalid_request", "messages", {"memory": False}),
    "messages is empty": Case(400, "invalid_request", "messages", _messages()),
    "messages is a string": Case(400, "invalid_request", "messages", {"messages": "hi"}),
    "content is a number": Case(400, "invalid_request", "messages[0].content",
                                _messages({"role": "user", "content": 5})),
    "content has a lone surrogate": Case(400, "invalid_request", "messages[0].content",
                                         b'{"messages": [{"role": "user", "content": "\\ud800"}]}'),
    "content is an image": Case(400, "unsupported_content", "messages[0].content",
                                _messages({"role": "user", "content": [{"type": "image_url"}]})),
    "a part's text is a number": Case(400, "invalid_request", "messages[0].content[0].text",
                                      _messages({"role": "user", "content": [{"type": "text", "text": 5}]})),
    "unknown role": Case(400, "invalid_request", "messages[1].role",
                         _messages({"role": "user", "content": "a"}, {"role": "wizard", "content": "b"})),
    "a tool message first": Case(400, "invalid_messages", "messages", _messages({"role": "tool", "content": "x"})),
    "a function message": Case(400, "unsupported_role", "messages[0].role",
                               _messages({"role": "function", "content": "x"})),
    "last message the assistant's": Case(400, "invalid_messages", "messages",
                                         _messages({"role": "user", "content": "a"},
                                                   {"role": "assistant", "content": "b"})),
    "n above 1": Case(400, "unsupported", "n", _chat(n=2)),
    "logprobs": Case(400, "unsupported", "logprobs", _chat(logprobs=True)),
    "a tool not a function": Case(400, "invalid_request", "tools[0]", _chat(tools=[{"type": "retrieval"}])),
    "a tool's unsupported schema": Case(400, "unsupported_schema", "tools[0].function.parameters", _chat(tools=[
        {"type": "function", "function": {"name": "f", "parameters": {"type": "object", "not": {}}}}])),
    "functions": Case(400, "unsupported", "functions", _chat(functions=[{"name": "f"}])),
    "an unknown response format": Case(400, "invalid_request", "response_format",
                                       _chat(response_format={"type": "yaml"})),
    "a bad namespace header": Case(400, "invalid_namespace", "X-Local-Agent-User", _chat(),
                                   headers={"X-Local-Agent-User": "../x"}),
    "a bad namespace in the body": Case(400, "invalid_namespace", "user", _chat(user="../x")),
    "a bad memory header": Case(400, "invalid_memory_flag", "X-Local-Agent-Memory", _chat(),
                                headers={"X-Local-Agent-Memory": "maybe"}),
    "malformed JSON": Case(400, "invalid_request", None, b'{"messages": ['),
    "the body an array": Case(400, "invalid_request", None, b"[1, 2]"),
    "embeddings input a number": Case(400, "invalid_request", "input", {"input": 5}, "/v1/embeddings"),
    "embeddings input empty": Case(400, "invalid_request", "input", {"input": ""}, "/v1/embeddings"),
    "embeddings encoding unknown": Case(400, "invalid_request", "encoding_format",
                                        {"input": "x", "encoding_format": "hex"}, "/v1/embeddings"),
    "memory text empty": Case(400, "invalid_request", "text", {"text": ""}, "/v1/memories"),
    "memory search limit a string": Case(400, "invalid_request", "limit", {"query": "bees", "limit": "5"},
                                         "/v1/memories/search"),
    "memory list kind unknown": Case(400, "invalid_request", "kind", None, "/v1/memories?kind=secret", "GET"),
    # 401, 403, 404, 413, 415
    "a wrong key": Case(401, "invalid_api_key", None, _chat(), headers={"Authorization": "Bearer wrong-key-000"}),
    "a foreign Host header": Case(403, "forbidden_host", None, _chat(), headers={"Host": "evil.example"}),
    "an unknown model": Case(404, "model_not_found", "model", _chat(model="gpt-4o")),
    "an unknown memory": Case(404, "NotFoundError", None, None, "/v1/memories/0123456789", "DELETE"),
    "an unknown path": Case(404, None, None, None, "/v1/nothing", "GET"),
    "a body over --max-body": Case(413, "body_too_large", None, chat_body("x" * MAX_BODY)),
    "not application/json": Case(415, "unsupported_media_type", None, b"{}", headers={"Content-Type": "text/plain"}),
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalServer]:
    from .fakes import ScriptedBackend

    data_dir = tmp_path_factory.mktemp("errors") / "data"
    with running_server(server_settings(data_dir), ScriptedBackend(), api_key=KEY, max_body=MAX_BODY) as running:
        yield running


def _send(server: LocalServer, case: Case) -> httpx.Response:
    headers = {**AUTH, **case.headers}
    if isinstance(case.body, bytes):
        headers.setdefault("Content-Type", "application/json")
        return httpx.request(case.method, server.url + case.path, content=case.body, headers=headers, timeout=30)
    if case.body is None:
        return httpx.request(case.method, server.url + case.path, headers=headers, timeout=30)
    content = json.dumps(case.body).encode()
    headers.setdefault("Content-Type", "application/json")
    return httpx.request(case.method, server.url + case.path, content=content, headers=headers, timeout=30)


def check_error(response: httpx.Response, status: int, code: str | None, param: str | None) -> dict[str, Any]:
    """OpenAI's error shape, the status's type, the code and param expected, and a message that
    names the param first and says nothing of pydantic."""
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert set(error) == {"message", "type", "param", "code"}
    assert error["type"] == TYPES[status] and error["code"] == code and error["param"] == param, error
    assert error["message"] and not INTERNALS.search(error["message"]), error["message"]
    if param is not None and status == 400:
        assert error["message"].startswith(param + ": "), error["message"]
    return error


@pytest.mark.parametrize("name", list(CASES))
def test_each_refused_request(server: LocalServer, name: str) -> None:
    case = CASES[name]
    check_error(_send(server, case), case.status, case.code, case.param)


def test_the_messages_say_what_was_expected(server: LocalServer) -> None:
    """A few messages in full, to read as a client would."""
    from local_agent.server.invalid import BAD_JSON

    expected = {
        "stop holds an empty string": "stop[0]: must not be empty",
        "stop is a number": "stop: expected a string or an array of strings, got a number",
        "max_tokens is true": "max_tokens: expected an integer, got a boolean",
        "max_tokens is a string": "max_tokens: expected an integer, got a string",
        "content is a number":
            "messages[0].content: expected a string, an array of content parts or null, got a number",
        "content has a lone surrogate": "messages[0].content: text is not valid Unicode (it holds a lone surrogate)",
        "no messages field": "messages: is required",
        "malformed JSON": BAD_JSON,
    }
    for name, message in expected.items():
        assert _send(server, CASES[name]).json()["error"]["message"] == message, name


def test_429_when_the_queue_is_full(tmp_path: Path) -> None:
    slow = SlowBackend(words=400, delay=0.05)
    with running_server(server_settings(tmp_path / "data"), slow, memory=False, max_queue=1) as server:
        url = server.url + "/v1/chat/completions"
        with httpx.stream("POST", url, json=chat_body("first", stream=True)) as first:
            lines = first.iter_lines()
            next(lines)  # being served
            waiting = threading.Thread(target=lambda: httpx.post(url, json=chat_body("second"), timeout=60))
            waiting.start()
            _until(lambda: httpx.get(server.url + "/health").json()["waiting"] == 1)
            check_error(httpx.post(url, json=chat_body("third")), 429, "queue_full", None)
            slow.words = 1
        waiting.join(60)


def test_503_while_the_model_loads(tmp_path: Path) -> None:
    gate = threading.Event()

    def slow_load(settings: Settings, *, model: str | None = None) -> tuple[Backend, BackendChoice]:
        gate.wait(30)
        return SlowBackend(words=1, delay=0), BackendChoice(backend="slow", device="cpu", reason="test")

    server = LocalServer(server_settings(tmp_path / "data"), ServerOptions(port=0, memory=False),
                         backend_factory=slow_load)
    server.bind()
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        _until(lambda: _answers(server.url))
        check_error(httpx.post(server.url + "/v1/chat/completions", json=chat_body("hi")), 503, "loading", None)
    finally:
        gate.set()
        server.stop()
        thread.join(30)


def test_every_status_the_docs_list_is_walked() -> None:
    """The docs' list of errors and this file's cases stay together."""
    text = (ROOT / "docs" / "server.md").read_text(encoding="utf-8")
    listed = text[text.index("- **Errors**"):].split("\n- ")[0].split("Bad input never")[0]
    documented = {int(code) for code in re.findall(r"`(\d{3})`", listed)}
    walked = {case.status for case in CASES.values()} | {429, 503}
    assert documented and documented <= walked, documented - walked


def _until(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def _answers(url: str) -> bool:
    try:
        return httpx.get(url + "/health").status_code == 200
    except httpx.HTTPError:
        return False
