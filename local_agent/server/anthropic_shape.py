"""What Anthropic's clients expect around the Messages API, in front of the guard (security.py):

- The API key as `x-api-key: KEY` (Anthropic's header) is taken as `Authorization: Bearer KEY`
  when the request has no Authorization header, on every path, so the guard checks it the
  same way, in constant time.
- Every error answered on `/v1/messages...` (by the guard, a route or a handler) leaves in
  Anthropic's shape, `{"type": "error", "error": {"type", "message"}}`, with the same status;
  the OpenAI routes keep theirs. A stream that has begun reports errors as events instead
  (routes_anthropic.py): only responses with an error status are reshaped.
"""

from __future__ import annotations

import json
from typing import Any

from .anthropic_responses import error_body
from .security import ASGIApp, Message, Receive, Scope, Send

KEY_HEADER = b"x-api-key"
PREFIX = "/v1/messages"


def with_bearer(scope: Scope) -> Scope:
    """`scope` with an Authorization header made from x-api-key, when it has the one and not the other."""
    headers = list(scope.get("headers", []))
    names = {name.lower() for name, _ in headers}
    if KEY_HEADER not in names or b"authorization" in names:
        return scope
    key = next(value for name, value in headers if name.lower() == KEY_HEADER)
    return {**scope, "headers": [*headers, (b"authorization", b"Bearer " + key.strip())]}


def reshaped(body: bytes, status: int) -> bytes:
    """An OpenAI-shaped error body in Anthropic's shape (its message kept)."""
    try:
        data: Any = json.loads(body)
        message = str(data["error"]["message"])
    except (ValueError, KeyError, TypeError):
        message = "request refused"
    if status == 401:
        message = "a valid API key is required (x-api-key: KEY, or Authorization: Bearer KEY)"
    return json.dumps(error_body(status, message), ensure_ascii=False).encode("utf-8")


class AnthropicShape:
    """A pure ASGI wrapper: streamed responses pass through untouched."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        scope = with_bearer(scope)
        if not str(scope.get("path", "")).startswith(PREFIX):
            await self.app(scope, receive, send)
            return
        await self.app(scope, receive, _ErrorReshaper(send))


class _ErrorReshaper:
    """Holds back an error response's start until its body is complete, then sends both
    reshaped (with the new length)."""

    def __init__(self, send: Send) -> None:
        self.send = send
        self.start: Message | None = None
        self.body = b""

    async def __call__(self, message: Message) -> None:
        if message["type"] == "http.response.start" and message.get("status", 200) >= 400:
            self.start = message
            return
        if self.start is None or message["type"] != "http.response.body":
            await self.send(message)
            return
        self.body += message.get("body", b"")
        if message.get("more_body", False):
            return
        status = int(self.start["status"])
        body = reshaped(self.body, status) if self.body else b""
        headers = [(name, value) for name, value in self.start.get("headers", [])
                   if name.lower() not in (b"content-length", b"content-type")]
        if body:
            headers.append((b"content-type", b"application/json"))
        headers.append((b"content-length", str(len(body)).encode()))
        await self.send({**self.start, "headers": headers})
        await self.send({"type": "http.response.body", "body": body})
