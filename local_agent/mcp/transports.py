"""The SDK's transports with every raw message checked first (malformed.py): over stdio, the
lines are read here and only those that pass reach the SDK's reader, while a refusal goes out
through the SDK's own writer (one writer: answers never interleave); over HTTP, a POST body
is read and checked before the SDK's app sees it."""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable, Iterator
from io import TextIOWrapper
from typing import IO, Any, cast

import anyio
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp_types import ErrorData, JSONRPCError
from starlette.exceptions import HTTPException
from starlette.responses import JSONResponse

from ..server.errors import error_response
from ..server.security import ASGIApp, Message, Receive, Scope, Send
from .malformed import Refusal, Required, check_message

Serve = Callable[[Any, Any], Awaitable[None]]  # the server's loop over (read stream, write stream)


def as_message(refusal: Refusal) -> SessionMessage:
    return SessionMessage(JSONRPCError(jsonrpc="2.0", id=refusal.id,
                                       error=ErrorData(code=refusal.code, message=refusal.message)))


class CheckedLines:
    """stdin's lines as the SDK's reader takes them, without the malformed ones: each of
    those is answered on the write stream handed to `answer_on` (blank lines are skipped)."""

    def __init__(self, lines: AsyncIterable[str], required: Required) -> None:
        self._lines = lines
        self._required = required
        self._answers: Any = None
        self._ready = anyio.Event()

    def answer_on(self, write_stream: Any) -> None:
        self._answers = write_stream
        self._ready.set()

    async def __aiter__(self) -> AsyncIterator[str]:
        async for line in self._lines:
            if not line.strip():
                continue
            refusal = check_message(line, self._required)
            if refusal is None:
                yield line
                continue
            await self._ready.wait()
            with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
                await self._answers.send(as_message(refusal))


@contextlib.contextmanager
def claimed_stdin() -> Iterator[IO[bytes]]:
    """The protocol's stdin on a private descriptor, with fd 0 pointed at the null device
    while it is served (as the SDK does): a child process or stray read gets EOF, never a
    piece of the protocol. The private descriptor stays open: a reading thread may still
    block on it after the server ends."""
    wire = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
    finally:
        os.close(null)
    try:
        yield os.fdopen(wire, "rb", closefd=False)
    finally:
        os.dup2(wire, 0)


async def serve_checked_stdio(serve: Serve, required: Required) -> None:
    """`serve` over stdin and stdout, malformed lines answered before the SDK reads them."""
    with claimed_stdin() as wire:
        text = TextIOWrapper(wire, encoding="utf-8", errors="replace")
        lines = CheckedLines(anyio.wrap_file(text), required)
        async with stdio_server(stdin=cast(Any, lines)) as (read_stream, write_stream):
            lines.answer_on(write_stream)
            await serve(read_stream, write_stream)


class CheckedBodies:
    """An ASGI wrapper that reads each POST body, answers a malformed message with its
    JSON-RPC error (HTTP 400, as the SDK answers its own), and hands the rest on unchanged."""

    def __init__(self, app: ASGIApp, required: Required) -> None:
        self.app = app
        self.required = required

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("type") != "http" or scope.get("method") != "POST":
            await self.app(scope, receive, send)
            return
        try:
            body = await _whole_body(receive)
        except HTTPException as exc:  # over --max-body, counted by the guard as it arrives
            await error_response(exc.status_code, str(exc.detail), getattr(exc, "code", None))(scope, receive, send)
            return
        refusal = check_message(body, self.required)
        if refusal is not None:
            await JSONResponse(refusal.to_json(), status_code=400)(scope, receive, send)
            return
        await self.app(scope, _replay(body, receive), send)


async def _whole_body(receive: Receive) -> bytes:
    parts: list[bytes] = []
    while True:
        message = await receive()
        if message.get("type") != "http.request":
            break
        parts.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    return b"".join(parts)


def _replay(body: bytes, receive: Receive) -> Receive:
    """`receive` that gives the body read already, then what the connection says next."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()
    return replay
