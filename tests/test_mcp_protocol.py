"""`local-agent mcp` at the protocol's edges: malformed calls get protocol errors and the server
goes on; stdout carries protocol messages only, even when the model writes to it; the HTTP
transport has serve's guard (Host, API key, JSON bodies, loopback unless a key is set); the
flags that must not start a server do not."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from .cli_helpers import error_line, run_main
from .mcp_helpers import API_KEY, ROOT, command, connected, http_server, rpc_lines, server_env

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
INVALID_PARAMS, METHOD_NOT_FOUND, PARSE_ERROR = -32602, -32601, -32700


def call(ident: int, name: Any, arguments: Any = None) -> dict[str, Any]:
    params = {"name": name} if arguments is None else {"name": name, "arguments": arguments}
    return {"jsonrpc": "2.0", "id": ident, "method": "tools/call", "params": params}


def converse(args: list[str], lines: list[dict[str, Any] | str], last_id: int, data_dir: Path,
             timeout: float = 120) -> tuple[dict[int, dict[str, Any]], list[str], str, int]:
    """Write `lines` on a server's stdin, read its stdout until the answer to `last_id`, then
    close stdin: (answers by id, every stdout line, stderr, exit code)."""
    environment = {**os.environ, **server_env(data_dir)}
    errlog = data_dir.parent / "mcp-stderr.txt"
    with errlog.open("w", encoding="utf-8") as log:
        process = subprocess.Popen(args, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, text=True,
                                   env=environment)
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(rpc_lines(lines))
    process.stdin.flush()
    seen: list[str] = []
    answers: dict[int, dict[str, Any]] = {}
    for line in process.stdout:
        seen.append(line)
        message = json.loads(line)  # every line the server writes is a JSON-RPC message
        assert message["jsonrpc"] == "2.0"
        if message.get("id") is not None:
            answers[message["id"]] = message
        if last_id in answers:
            break
    process.stdin.close()  # the client is done: the server exits
    seen += process.stdout.readlines()
    code = process.wait(timeout)
    return answers, seen, errlog.read_text(encoding="utf-8"), code


def test_malformed_calls_get_protocol_errors_and_the_server_goes_on(data_dir: Path) -> None:
    answers, _, err, code = converse(command(), [
        INIT, INITIALIZED,
        call(2, 5),  # a tool name that is no string
        "this is not JSON",  # no id to answer: dropped, and the server reads on
        {"jsonrpc": "2.0", "id": 3, "method": "no/such/method"},
        call(4, "recall", "not an object"),
        "[1, 2]",
        call(5, "recall", {"query": ""}),  # against the tool's schema: the tool's error, for the model to fix
        call(6, "no_such_tool", {}),
        {"jsonrpc": "2.0", "id": 7, "method": "tools/list"},
    ], 7, data_dir)
    assert answers[2]["error"]["code"] == INVALID_PARAMS
    assert answers[3]["error"]["code"] == METHOD_NOT_FOUND
    assert answers[4]["error"]["code"] == INVALID_PARAMS
    assert answers[5]["result"]["isError"] is True and "query" in answers[5]["result"]["content"][0]["text"]
    assert answers[6]["result"]["isError"] is True
    assert {tool["name"] for tool in answers[7]["result"]["tools"]} == {"recall", "list_memories", "remember", "ask"}
    assert code == 0, err  # stdin closed: a clean exit, no traceback
    assert "Traceback" not in err


def test_stdout_carries_protocol_messages_only(data_dir: Path) -> None:
    noisy = [sys.executable, "-m", "tests.serve_scripted", "--noisy-stdout", "mcp", "--verbose"]
    answers, seen, err, code = converse(noisy, [
        INIT, INITIALIZED, call(2, "ask", {"question": "What should I cook tonight?"}),
    ], 2, data_dir)
    assert answers[2]["result"]["structuredContent"]["answer"] == "Scripted answer."
    assert all(json.loads(line)["jsonrpc"] == "2.0" for line in seen)  # the model's noise went elsewhere
    assert "noise from the model on stdout" in err and "native noise on fd 1" in err
    assert "loading" in err  # --verbose: what loads, on stderr
    assert code == 0


def test_http_has_serve_s_guard_and_survives_bad_requests(data_dir: Path) -> None:
    initialize = json.dumps(INIT)
    accept = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    key = {"Authorization": f"Bearer {API_KEY}"}
    with http_server(data_dir) as url:
        assert httpx.post(url, content=initialize, headers=accept).status_code == 401
        assert httpx.post(url, content=initialize, headers={**accept, "Authorization": "Bearer wrong-key-1"}
                          ).status_code == 401
        assert httpx.post(url, content=initialize, headers={**accept, **key, "Host": "evil.example"}).status_code == 403
        assert httpx.post(url, content=initialize, headers={**accept, **key, "Origin": "http://evil.example"}
                          ).status_code == 403
        assert httpx.post(url, content=initialize, headers={**key, "Content-Type": "text/plain"}).status_code == 415
        broken = httpx.post(url, content="{not json", headers={**accept, **key})
        assert broken.status_code == 400 and broken.json()["error"]["code"] == PARSE_ERROR

        async def still_serving() -> set[str]:
            http = httpx2.AsyncClient(headers=key)
            async with http, Client(streamable_http_client(url, http_client=http)) as client:
                return {tool.name for tool in (await client.list_tools()).tools}
        assert "recall" in anyio.run(still_serving)


@pytest.mark.parametrize(("args", "message"), [
    (["--read-only", "--allow-forget"], "--read-only and --allow-forget exclude each other"),
    (["--user", "../bob"], "--user: a namespace name is 1-64 of"),
    (["--http", "--host", "0.0.0.0"], "refusing to listen on 0.0.0.0 without an API key"),
    (["--http", "--tools"], "the built-in tools run in the server only with an API key"),
    (["--approve"], "--approve asks on a terminal"),
])
def test_unsafe_or_contradictory_flags_refuse_to_start(args: list[str], message: str,
                                                       capsys: pytest.CaptureFixture[str],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, err = run_main(["mcp", *args], capsys, monkeypatch)
    assert code == 1 and out == ""
    assert message in error_line(err)


def test_http_flags_need_http(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, err = run_main(["mcp", "--port", "9000"], capsys, monkeypatch)
    assert code == 2 and out == "" and "--port needs --http" in err


def test_the_sdk_client_sees_progress_while_the_model_loads(data_dir: Path) -> None:
    seen: list[str] = []

    async def note(progress: float, total: float | None, message: str | None) -> None:
        seen.append(message or "")

    async def scenario() -> None:
        async with connected("stdio", data_dir) as client:
            await client.call_tool("recall", {"query": "anything"}, progress_callback=note)
            assert seen == ["loading the memory (its embedding model and store) ...", "memory ready"]
            seen.clear()
            await client.call_tool("ask", {"question": "Hello?"}, progress_callback=note)
            assert seen[0].startswith("loading") and seen[-1] == "ready"
            seen.clear()
            await client.call_tool("ask", {"question": "Hello again?"}, progress_callback=note)
            assert seen == []  # loaded once
    anyio.run(scenario)
