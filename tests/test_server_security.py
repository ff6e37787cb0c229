"""The server's guard: loopback by default, API key, Host header, content type, body size,
CORS only when asked. Every server here binds 127.0.0.1."""

from __future__ import annotations

import http.client
import json
import socket
from pathlib import Path

import httpx
import openai
import pytest

from local_agent.config import Settings
from local_agent.errors import ConfigError
from local_agent.server.discovery import socket_path
from local_agent.server.options import ServerOptions
from local_agent.server.run import LocalServer
from local_agent.server.security import host_name

from .cli_helpers import error_line, run_main
from .fakes import ScriptedBackend
from .server_helpers import chat_body, running_server, server_settings

KEY = "test-key-0123456789"


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return server_settings(tmp_path / "data")


@pytest.fixture
def guarded() -> ScriptedBackend:
    return ScriptedBackend(default="Guarded answer.")


def raw(server: LocalServer, method: str, path: str, body: bytes = b"", headers: dict | None = None):
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    connection.request(method, path, body=body or None, headers=headers or {})
    response = connection.getresponse()
    data = response.read()
    connection.close()
    is_json = (response.getheader("content-type") or "").startswith("application/json")
    return response.status, json.loads(data) if is_json else None, response


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.10"])
def test_a_non_loopback_bind_without_a_key_is_refused(settings, guarded, host: str) -> None:
    with pytest.raises(ConfigError, match="without an API key"):
        LocalServer(settings, ServerOptions(host=host, port=0))


def test_the_cli_refuses_it_with_one_line(capsys, monkeypatch, tmp_path: Path) -> None:
    monkeypatch.delenv("LOCAL_AGENT_API_KEY", raising=False)
    code, out, err = run_main(["serve", "--host", "0.0.0.0", "--port", "0", "--data-dir", str(tmp_path / "d")],
                              capsys, monkeypatch)
    assert code == 1 and "without an API key" in error_line(err)
    assert "listening" not in out


def test_wrong_or_missing_key_is_401_and_the_right_key_works(settings, guarded) -> None:
    with running_server(settings, guarded, api_key=KEY, memory=False) as server:
        wrong = openai.OpenAI(base_url=server.url + "/v1", api_key="not-the-key", max_retries=0)
        with pytest.raises(openai.AuthenticationError):
            wrong.models.list()
        status, body, _ = raw(server, "GET", "/v1/models", headers={"Host": "localhost"})
        assert status == 401 and body["error"]["code"] == "invalid_api_key"
        right = openai.OpenAI(base_url=server.url + "/v1", api_key=KEY, max_retries=0)
        reply = right.chat.completions.create(model="scripted", messages=[{"role": "user", "content": "A story"}])
        assert reply.choices[0].message.content == "Guarded answer."


def test_the_unix_socket_needs_no_key(settings, guarded) -> None:
    with running_server(settings, guarded, api_key=KEY, memory=False) as server:
        path = socket_path(settings.data_dir)
        assert server.socket_path == path and oct(path.stat().st_mode & 0o777) == "0o600"
        transport = httpx.HTTPTransport(uds=str(path))
        with httpx.Client(transport=transport, base_url="http://localhost") as client:
            assert client.get("/v1/models").status_code == 200
    assert not path.exists(), "the socket is removed on exit"


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8765", "127.0.0.1.nip.io", "[::2]:1", ""])
def test_a_foreign_host_header_is_refused(settings, guarded, host: str) -> None:
    with running_server(settings, guarded, memory=False) as server:
        status, body, _ = raw(server, "POST", "/v1/chat/completions", json.dumps(chat_body("hi")).encode(),
                              {"Host": host, "Content-Type": "application/json"})
        assert status == 403 and body["error"]["code"] == "forbidden_host"
        for allowed in ("localhost", f"127.0.0.1:{server.port}", "[::1]:9"):
            assert raw(server, "GET", "/v1/models", headers={"Host": allowed})[0] == 200


@pytest.mark.parametrize("host", ["127.0.0.1:{port}@evil.example", "localhost@evil.example", "127.0.0.1:80:80",
                                  "localhost:port", "[::1]evil.example", "::1", "localhost/evil", "local host",
                                  "127.0.0.1:123456"])
def test_a_host_header_is_parsed_strictly(host: str) -> None:
    assert host_name(host.format(port=8765)) is None


def test_a_host_with_a_user_part_is_refused_by_the_server(settings, guarded) -> None:
    with running_server(settings, guarded, memory=False) as server:
        for host in (f"127.0.0.1:{server.port}@evil.example", "localhost@evil.example", "localhost:1:2"):
            status, body, _ = raw(server, "GET", "/v1/models", headers={"Host": host})
            assert status == 403 and body["error"]["code"] == "forbidden_host", host


def test_allowed_host_option(settings, guarded) -> None:
    with running_server(settings, guarded, memory=False, allowed_hosts=("box.lan",)) as server:
        assert raw(server, "GET", "/v1/models", headers={"Host": "box.lan:80"})[0] == 200


@pytest.mark.parametrize("content_type", [None, "text/plain", "application/x-www-form-urlencoded",
                                          "multipart/form-data; boundary=x"])
def test_posts_must_be_json(settings, guarded, content_type: str | None) -> None:
    with running_server(settings, guarded, memory=False) as server:
        headers = {"Host": "localhost", **({"Content-Type": content_type} if content_type else {})}
        status, body, _ = raw(server, "POST", "/v1/chat/completions", json.dumps(chat_body("hi")).encode(), headers)
        assert status == 415 and body["error"]["code"] == "unsupported_media_type"


def test_bodies_over_the_limit_are_413(settings, guarded) -> None:
    with running_server(settings, guarded, memory=False, max_body=4096) as server:
        big = json.dumps(chat_body("x" * 5000)).encode()
        status, body, _ = raw(server, "POST", "/v1/chat/completions", big,
                              {"Host": "localhost", "Content-Type": "application/json"})
        assert status == 413 and body["error"]["code"] == "body_too_large"
        chunked = _send_chunked(server.port, big)
        assert chunked.startswith(b"HTTP/1.1 413"), chunked[:80]


def _send_chunked(port: int, body: bytes) -> bytes:
    """A body without Content-Length (chunked): the limit applies as it arrives."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        head = (b"POST /v1/chat/completions HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                b"Transfer-Encoding: chunked\r\n\r\n")
        pieces = [body[i : i + 1000] for i in range(0, len(body), 1000)]
        payload = b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in pieces) + b"0\r\n\r\n"
        sock.sendall(head + payload)
        return sock.recv(65536)


def test_no_cors_unless_asked(settings, guarded) -> None:
    preflight = {"Host": "localhost", "Origin": "http://ui.example", "Access-Control-Request-Method": "POST",
                 "Access-Control-Request-Headers": "content-type"}
    with running_server(settings, guarded, memory=False) as server:
        status, _, response = raw(server, "OPTIONS", "/v1/chat/completions", headers=preflight)
        assert response.getheader("access-control-allow-origin") is None and status >= 400
    with running_server(settings, guarded, memory=False, cors_origins=("http://ui.example",)) as server:
        status, _, response = raw(server, "OPTIONS", "/v1/chat/completions", headers=preflight)
        assert status == 200 and response.getheader("access-control-allow-origin") == "http://ui.example"
        _, _, response = raw(server, "GET", "/v1/models", headers={"Host": "localhost", "Origin": "http://evil.example"})
        assert response.getheader("access-control-allow-origin") is None


def test_the_key_comes_from_a_file_or_the_environment(tmp_path: Path) -> None:
    from local_agent.server.options import resolve_api_key

    key_file = tmp_path / "key"
    key_file.write_text(KEY + "\n")
    assert resolve_api_key(None, key_file, {}) == KEY
    assert resolve_api_key(None, None, {"LOCAL_AGENT_API_KEY": KEY}) == KEY
    assert resolve_api_key(None, None, {}) is None
    key_file.write_text("")
    with pytest.raises(ConfigError):
        resolve_api_key(None, key_file, {})


def test_nothing_a_user_said_is_logged_at_info_level(settings, guarded) -> None:
    import logging

    secret = "my-secret-phrase-4711"
    records: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(self.format(record))

    handler = Collect(level=logging.INFO)
    loggers = [logging.getLogger(name) for name in ("uvicorn", "uvicorn.access", "uvicorn.error", "local_agent", "")]
    with running_server(settings, guarded, verbose=True) as server:
        for logger in loggers:  # after the start: uvicorn sets its loggers' handlers when it starts
            logger.addHandler(handler)
        try:
            url = server.url
            assert httpx.post(url + "/v1/chat/completions", json=chat_body(f"I am {secret}.")).status_code == 200
            assert httpx.post(url + "/v1/memories/search", json={"query": secret}).status_code == 200
            bad = {"messages": [{"role": "wizard", "content": secret}], "max_tokens": secret}
            response = httpx.post(url + "/v1/chat/completions", json=bad)
            assert response.status_code == 400 and secret not in response.text
        finally:
            for logger in loggers:
                logger.removeHandler(handler)
    assert any("POST /v1/chat/completions" in line for line in records), "the access log was on"
    assert not [line for line in records if secret in line]
