"""Issue 44: every malformed MCP request gets a JSON-RPC error, over stdio and HTTP. `tools/call`
with `params` a string or an array got no answer at all (the SDK's stdio transport turns such
a line into a parse failure without an id, and drops it), so a client waiting on that id hung.
Each message here is sent and its answer waited for with a timeout."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from local_agent.limits import MAX_MESSAGE_CHARS

from .mcp_helpers import API_KEY, ROOT, command, http_server, rpc_lines, server_env
from .test_mcp_protocol import INIT, INITIALIZED

INVALID_REQUEST, INVALID_PARAMS, PARSE_ERROR = -32600, -32602, -32700
ANSWER_S = 30.0  # each answer is waited for this long at most


def request(ident: Any, method: Any = "tools/call", **fields: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": ident, "method": method, **fields}


# (the message, the id its answer must carry, the error code)
MALFORMED: list[tuple[dict[str, Any] | list[Any] | str, Any, int]] = [
    (request(10, params="recall"), 10, INVALID_PARAMS),  # params a string
    (request(11, params=["recall", {"query": "x"}]), 11, INVALID_PARAMS),  # params an array
    (request(12, params={"name": "recall"}), 12, INVALID_PARAMS),  # no arguments for a tool that needs them
    (request(13, params=None), 13, INVALID_PARAMS),
    (request(14, params={"name": "recall", "arguments": [1]}), 14, INVALID_PARAMS),
    (request(15, params={"arguments": {"query": "x"}}), 15, INVALID_PARAMS),  # no tool name
    (request(16, "tools/list", params=5), 16, INVALID_PARAMS),
    (request("seventeen", params="x"), "seventeen", INVALID_PARAMS),  # a string id is kept
    ({"id": 18, "method": "tools/list"}, 18, INVALID_REQUEST),  # no "jsonrpc"
    ({"jsonrpc": "1.0", "id": 19, "method": "tools/list"}, 19, INVALID_REQUEST),
    (request(20, 7), 20, INVALID_REQUEST),  # a method that is no string
    ({"jsonrpc": "2.0", "id": 21}, 21, INVALID_REQUEST),  # neither method nor result
    (request(None, "tools/list"), None, INVALID_REQUEST),  # an id of null passed as a notification
    (request(1.5, "tools/list"), None, INVALID_REQUEST),
    (request(True, "tools/list"), None, INVALID_REQUEST),
    ([request(22, "tools/list")], None, INVALID_REQUEST),  # a batch
    ("this is not JSON", None, PARSE_ERROR),
]


class Lines:
    """A server's stdout, read on a thread so that each answer is waited for with a timeout."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.queue: queue.Queue[str] = queue.Queue()
        assert process.stdout is not None
        stdout = process.stdout
        threading.Thread(target=self._read, args=(stdout,), daemon=True).start()

    def _read(self, stdout: Any) -> None:
        for line in stdout:
            self.queue.put(line)

    def next_answer(self) -> dict[str, Any]:
        """The next message with an id or an error (answers, not notifications)."""
        deadline = time.monotonic() + ANSWER_S
        while True:
            left = deadline - time.monotonic()
            try:
                message = json.loads(self.queue.get(timeout=max(left, 0.01)))
            except queue.Empty:
                raise AssertionError(f"no answer within {ANSWER_S:.0f} s") from None
            if "id" in message:
                return message


@pytest.fixture
def stdio_server(data_dir: Path):
    environment = {**os.environ, **server_env(data_dir)}
    with (data_dir.parent / "mcp-stderr.txt").open("w", encoding="utf-8") as log:
        process = subprocess.Popen(command(), cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log,
                                   text=True, env=environment)
    try:
        yield process
    finally:
        process.kill()
        process.wait(30)


def test_each_malformed_request_is_answered_with_its_id_over_stdio(stdio_server: subprocess.Popen[str]) -> None:
    assert stdio_server.stdin is not None
    lines = Lines(stdio_server)

    def send(message: dict[str, Any] | list[Any] | str) -> None:
        assert stdio_server.stdin is not None
        stdio_server.stdin.write(rpc_lines([message if not isinstance(message, list) else json.dumps(message)]))
        stdio_server.stdin.flush()

    send(INIT)
    assert lines.next_answer()["id"] == 1
    send(INITIALIZED)
    for message, ident, code in MALFORMED:
        send(message)
        answer = lines.next_answer()
        assert answer["id"] == ident and answer["error"]["code"] == code, (message, answer)
        assert "recall" not in answer["error"]["message"] or ident == 12, answer  # the value sent is not said back
    send(request(30, "tools/list"))
    assert {tool["name"] for tool in lines.next_answer()["result"]["tools"]} >= {"recall", "ask"}  # it goes on
    send(request(31, params={"name": "list_memories"}))  # a tool without required arguments may omit them
    assert lines.next_answer()["result"]["isError"] is False
    send(request(32, params={"name": "ask", "arguments": {"question": "x" * (MAX_MESSAGE_CHARS + 1)}}))
    refused = lines.next_answer()["result"]  # issue 44, item 2: over the message limit, the tool's error
    assert refused["isError"] is True and "question" in refused["content"][0]["text"]


def test_each_malformed_request_is_answered_with_its_id_over_http(data_dir: Path) -> None:
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
               "Authorization": f"Bearer {API_KEY}"}
    with http_server(data_dir) as url:
        opened = httpx.post(url, json=INIT, headers=headers, timeout=ANSWER_S)
        assert opened.status_code == 200
        session = {**headers, "Mcp-Session-Id": opened.headers["mcp-session-id"]}
        for message, ident, code in MALFORMED:
            body = message if isinstance(message, str) else json.dumps(message)
            answer = httpx.post(url, content=body, headers=session, timeout=ANSWER_S)
            assert answer.status_code == 400, (message, answer.text)
            error = answer.json()
            assert error["id"] == ident and error["error"]["code"] == code, (message, error)
            assert "input_value" not in answer.text  # the value sent is not said back
