"""The built-in tools in the server: only with `serve --tools` (or --db, --notes) and an API
key; a request's own `tools` replace them for that request (test_server_tool_calls.py);
memory search reads the request's own namespace; a warm `ask` with other tool settings than
the server's answers in-process."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import httpx
import pytest

from local_agent.errors import ConfigError
from local_agent.server.discovery import load_identity, mismatch
from local_agent.server.options import ServerOptions
from local_agent.server.run import LocalServer

from .cli_helpers import error_line, run_main
from .fakes import ScriptedBackend
from .server_helpers import chat_body, running_server, server_settings

KEY = "tools-key-0123456789"
AUTH = {"Authorization": f"Bearer {KEY}"}


@pytest.mark.parametrize("overrides", [{"tools": True}, {"db": Path("users.db")}, {"notes": Path("notes")}])
def test_tools_without_an_api_key_are_refused_at_start(tmp_path: Path, overrides: dict) -> None:
    settings = server_settings(tmp_path / "data", **overrides)
    with pytest.raises(ConfigError, match="only with an API key"):
        LocalServer(settings, ServerOptions(port=0))


def test_approval_is_refused_for_a_server(tmp_path: Path) -> None:
    settings = server_settings(tmp_path / "data", tools=True, approve=True)
    with pytest.raises(ConfigError, match="--approve asks on a terminal"):
        LocalServer(settings, ServerOptions(port=0, api_key=KEY))


def test_the_cli_says_so_in_one_line(capsys, monkeypatch, tmp_path: Path) -> None:
    monkeypatch.delenv("LOCAL_AGENT_API_KEY", raising=False)
    code, out, err = run_main(["serve", "--tools", "--port", "0", "--data-dir", str(tmp_path / "d")],
                              capsys, monkeypatch)
    assert code == 1 and "only with an API key" in error_line(err)
    assert "listening" not in out


@pytest.mark.parametrize(("overrides", "message"), [
    ({"db": Path("missing.db")}, "does not exist"), ({"notes": Path("no-such-folder")}, "not a folder"),
])
def test_a_missing_tool_source_fails_before_listening(tmp_path: Path, overrides: dict, message: str) -> None:
    settings = server_settings(tmp_path / "data", **{k: tmp_path / v for k, v in overrides.items()})
    with pytest.raises(ConfigError, match=message):
        LocalServer(settings, ServerOptions(port=0, api_key=KEY))


def _chat(server: LocalServer, text: str, namespace: str | None = None, **extra) -> httpx.Response:
    headers = {**AUTH, **({"X-Local-Agent-User": namespace} if namespace else {})}
    return httpx.post(server.url + "/v1/chat/completions", json=chat_body(text, **extra), headers=headers, timeout=60)


def test_with_a_key_the_calculator_runs_and_the_call_is_reported(tmp_path: Path) -> None:
    backend = ScriptedBackend()
    with running_server(server_settings(tmp_path / "data", tools=True), backend, api_key=KEY, memory=False) as server:
        response = _chat(server, "What is 17 * 23?")
        assert response.status_code == 200, response.text
        body = response.json()
        assert body["choices"][0]["message"]["content"] == "17 * 23 = 391"
        [call] = body["local_agent"]["tool_calls"]
        assert (call["name"], call["result"], call["error"]) == ("calculator", "17 * 23 = 391", None)
        plain = _chat(server, "Hello there, how was your weekend?").json()
        assert "tool_calls" not in plain["local_agent"] and backend.schemas == [None]


def test_memory_search_reads_only_the_requests_namespace(tmp_path: Path) -> None:
    backend = ScriptedBackend(default=json.dumps({"action": "final", "answer": "Looked."}))
    with running_server(server_settings(tmp_path / "data", tools=True), backend, api_key=KEY) as server:
        told = httpx.post(server.url + "/v1/memories", json={"text": "The user's sister is called Maya."},
                          headers={**AUTH, "X-Local-Agent-User": "alice"}, timeout=60)
        assert told.status_code in (200, 201), told.text
        results = {}
        for namespace in ("alice", "bob"):
            body = _chat(server, "What is my sister's name?", namespace, memory=True).json()
            calls = body["local_agent"]["tool_calls"]
            assert calls and calls[0]["name"] == "memory_search"
            results[namespace] = calls[0]["result"] or ""
        assert "Maya" in results["alice"] and "Maya" not in results["bob"]


def test_a_warm_ask_goes_to_a_server_only_with_the_same_tools(tmp_path: Path) -> None:
    plain = server_settings(tmp_path / "data")
    assert mismatch(load_identity(plain), load_identity(replace(plain, tools=True))) == ["tools"]
    assert mismatch(load_identity(replace(plain, tools=True)),
                    load_identity(replace(plain, tools=True, approve=True))) == ["tools"]
    assert mismatch(load_identity(replace(plain, tools=True)), load_identity(replace(plain, tools=True))) == []
