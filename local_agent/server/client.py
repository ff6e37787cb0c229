"""The warm `ask`: answer through a running server when one fits, else say so (None) and let
the CLI answer in-process.

Standard library only, so that `ask` through a server starts in a fraction of a second. The
server is found by its socket in the data dir or by LOCAL_AGENT_SERVER (discovery.py). It is
used only when it was started with the same load-time settings (it answers 409 otherwise),
and only before it has begun: once it accepted the question, a failure is an error, never a
second answer in-process. A server the user named (LOCAL_AGENT_SERVER) that refuses the key
or the Host is an error too: the user asked for that server.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from .. import errors
from ..config import Settings
from .discovery import (
    ASK_PATH,
    SERVER_ENV,
    call_settings,
    is_socket,
    load_identity,
    private_socket_dir,
    safe_socket_dir,
    socket_path,
)
from .options import API_KEY_ENV

CONNECT_TIMEOUT_S = 0.5
ANSWER_TIMEOUT_S = 600.0  # between two lines of the answer (a long queue, a slow model)
FALLBACK_STATUSES = frozenset({401, 404, 409, 429, 503})  # the server did nothing with the question
REFUSALS = frozenset({401, 403})  # a server named in LOCAL_AGENT_SERVER that refuses us: an error


@dataclass(frozen=True)
class FoundServer:
    connection: http.client.HTTPConnection  # not yet opened
    headers: dict[str, str]  # the API key, for a named server
    where: str  # its URL or socket path, for messages
    named: bool  # named by LOCAL_AGENT_SERVER (not found by its socket)


@dataclass(frozen=True)
class WarmAnswer:
    record: dict[str, Any]  # what `ask --json` prints
    memory_error: str | None


class UnixHTTPConnection(http.client.HTTPConnection):
    """HTTP over a Unix socket."""

    def __init__(self, path: str, timeout: float) -> None:
        super().__init__("localhost", timeout=timeout)
        self.path = path

    def connect(self) -> None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(self.timeout)
        try:
            sock.connect(self.path)
        except OSError:
            sock.close()
            raise
        self.sock = sock


def _note(settings: Settings, text: str) -> None:
    if settings.verbose:
        print(f"· {text}", file=sys.stderr, flush=True)


def find_server(settings: Settings) -> FoundServer | None:
    """The server for these settings; None when there is none."""
    url = os.environ.get(SERVER_ENV, "").strip()
    if url:
        parts = urlsplit(url)
        if parts.scheme != "http" or not parts.hostname:
            raise errors.ConfigError(f"{SERVER_ENV} must be an http:// URL, got {url!r}")
        key = os.environ.get(API_KEY_ENV, "").strip()
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        connection = http.client.HTTPConnection(parts.hostname, parts.port or 80, timeout=CONNECT_TIMEOUT_S)
        return FoundServer(connection, headers, url, named=True)
    path = socket_path(settings.data_dir)
    if not is_socket(path) or (path.parent == private_socket_dir() and not safe_socket_dir(path.parent)):
        return None
    return FoundServer(UnixHTTPConnection(str(path), CONNECT_TIMEOUT_S), {}, str(path), named=False)


def warm_ask(settings: Settings, message: str, *, session: str | None, system: str | None, memory: bool,
             on_token: Callable[[str], None] | None, wait_for_memory: bool = True) -> WarmAnswer | None:
    """Ask the running server; None when there is none that fits (answer in-process then).
    Without `wait_for_memory` it returns once the answer is complete, and the server does the
    memory work after (its errors are then the server's to log)."""
    found = find_server(settings)
    if found is None:
        return None
    connection, where = found.connection, found.where
    body = {"message": message, "session": session, "system": system, "memory": memory,
            "settings": call_settings(settings), "expect": load_identity(settings),
            "wait_for_memory": wait_for_memory}
    try:
        connection.request("POST", ASK_PATH, body=json.dumps(body).encode("utf-8"),
                           headers={"Content-Type": "application/json", **found.headers})
    except OSError as exc:
        _note(settings, f"no server at {where} ({exc.strerror or exc}); answering in-process")
        connection.close()
        return None
    try:
        return _answer(settings, found, on_token)
    finally:
        connection.close()


def _answer(settings: Settings, found: FoundServer, on_token: Callable[[str], None] | None) -> WarmAnswer | None:
    connection, where = found.connection, found.where
    try:
        if connection.sock is not None:
            connection.sock.settimeout(ANSWER_TIMEOUT_S)
        response = connection.getresponse()
        if found.named and response.status in REFUSALS:
            reason = _error_of(response.read()).get("message", response.reason)
            hint = f"; check {API_KEY_ENV}" if response.status == 401 else ""
            raise errors.ConfigError(f"the server {SERVER_ENV} names, {where}, refused the request: {reason}{hint}")
        if response.status in FALLBACK_STATUSES:
            reason = _error_of(response.read()).get("message", response.reason)
            _note(settings, f"the server at {where} cannot answer: {reason}; answering in-process")
            return None
        if response.status != 200:
            raise _raised(_error_of(response.read()))
        return _read_lines(response, on_token)
    except (OSError, http.client.HTTPException, ValueError) as exc:
        raise errors.BackendError(f"the server at {where} stopped before the answer was complete "
                                  f"({type(exc).__name__}); see its output") from None


def _read_lines(response: http.client.HTTPResponse, on_token: Callable[[str], None] | None) -> WarmAnswer:
    while line := response.readline():
        item = json.loads(line)
        if "token" in item:
            if on_token is not None:
                on_token(item["token"])
        elif "result" in item:
            return WarmAnswer(item["result"], item.get("memory_error"))
        elif "error" in item:
            raise _raised(item)
    raise ValueError("the answer ended early")


def _error_of(data: bytes) -> dict[str, Any]:
    try:
        error = json.loads(data).get("error")
    except (ValueError, AttributeError):
        return {}
    return error if isinstance(error, dict) else {}


def _raised(item: dict[str, Any]) -> errors.LocalAgentError:
    """The server's error as the class the in-process `ask` would raise (named by `code`)."""
    error = item.get("error", item)
    kind = getattr(errors, str(error.get("code")), None)
    cls = kind if isinstance(kind, type) and issubclass(kind, errors.LocalAgentError) else errors.LocalAgentError
    return cls(str(error.get("message") or "the server refused the question"))
