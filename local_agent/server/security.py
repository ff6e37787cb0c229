"""The guard in front of every request: Host check, API key, content type, body size.

- Host: only localhost, 127.0.0.1, [::1], the bound host and names given with --allowed-host,
  each with an optional port and nothing else (parsed strictly, `host_name`). A web page
  cannot then reach the server through DNS rebinding (ollama's CVE-2024-28224).
- API key, when one is set: `Authorization: Bearer KEY`, compared in constant time. The Unix
  socket needs none: its folder (0700) already admits only the server's own user.
- POST bodies must be `application/json`: a cross-site form or `text/plain` fetch cannot
  send one without a CORS preflight, which fails unless --cors-origin allows it. The page's
  import upload is the one exception: raw bytes (`application/octet-stream`) with an
  `X-Local-Agent-Import` header, which no form can send and a cross-site fetch only after the
  same preflight.
- The body is refused past --max-body (the upload: past --max-import), by its Content-Length or
  as it arrives.
- The page's own files (GET `/` and `/static/...`, page.py) are served without the key: they
  hold no secret, and the page asks for the key before anything else.
"""

from __future__ import annotations

import hmac
import re
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from fastapi import HTTPException

from .errors import error_response
from .options import ServerOptions, allowed_host_names
from .page import IMPORT_HEADER, IMPORT_PATH, is_page_file

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]
Refusal = tuple[int, str, str]  # status, message, code


class BodyTooLarge(HTTPException):
    def __init__(self, limit: int) -> None:
        super().__init__(413, f"the request body is over {limit} bytes")
        self.code = "body_too_large"


# RFC 9110's Host: a name or IPv4 address, or an IPv6 address in brackets, then an optional
# port of digits. Nothing else: no user part (`127.0.0.1:80@evil`), no second port, no path.
_HOST = re.compile(r"(?:\[(?P<ipv6>[0-9a-f:.]+)\]|(?P<name>[a-z0-9._-]+))(?::[0-9]{1,5})?")


def host_name(header: str | None) -> str | None:
    """The name in a Host header, lower case, without port or brackets; None for a header
    that is not exactly a host and an optional port."""
    match = _HOST.fullmatch((header or "").strip().lower())
    if match is None:
        return None
    return match["ipv6"] or match["name"]


def is_unix_socket(scope: Scope) -> bool:
    """uvicorn reports a Unix socket's address as (path, None)."""
    server = scope.get("server")
    return server is not None and server[1] is None


def _headers(scope: Scope) -> dict[str, str]:
    return {name.decode("latin-1").lower(): value.decode("latin-1") for name, value in scope.get("headers", [])}


def _media(content_type: str | None) -> str:
    return (content_type or "").split(";", 1)[0].strip().lower()


def _is_json(content_type: str | None) -> bool:
    return _media(content_type) == "application/json"


def _is_upload(headers: dict[str, str]) -> bool:
    return _media(headers.get("content-type")) == "application/octet-stream" and bool(headers.get(IMPORT_HEADER))


class Guard:
    """A pure ASGI middleware, so streamed responses pass through untouched."""

    def __init__(self, app: ASGIApp, options: ServerOptions) -> None:
        self.app = app
        self.hosts = allowed_host_names(options)
        self.key = options.api_key.encode("utf-8") if options.api_key else None
        self.max_body = options.max_body
        self.max_import = options.max_import

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refusal = self.check(scope)
        if refusal is not None:
            status, message, code = refusal
            headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
            await error_response(status, message, code, headers=headers)(scope, receive, send)
            return
        await self.app(scope, self._limited(receive, self._limit(scope)), send)

    def _limit(self, scope: Scope) -> int:
        return self.max_import if scope.get("path") == IMPORT_PATH else self.max_body

    def check(self, scope: Scope) -> Refusal | None:
        headers = _headers(scope)
        if host_name(headers.get("host")) not in self.hosts:
            return 403, "this Host is not allowed (see --allowed-host)", "forbidden_host"
        method = scope.get("method", "GET")
        if method == "OPTIONS":  # a CORS preflight carries no key; CORS answers it
            return None
        if (self.key is not None and not is_unix_socket(scope) and not is_page_file(method, scope.get("path", ""))
                and not self._key_ok(headers.get("authorization"))):
            return 401, "a valid API key is required (Authorization: Bearer KEY)", "invalid_api_key"
        refusal = self._body_refusal(scope, method, headers)
        if refusal is not None:
            return refusal
        length = (headers.get("content-length") or "0").strip()
        if not length.isdigit():
            return 400, "Content-Length must be a number", "invalid_request"
        limit = self._limit(scope)
        if int(length) > limit:
            return 413, f"the request body is over {limit} bytes", "body_too_large"
        return None

    def _body_refusal(self, scope: Scope, method: str, headers: dict[str, str]) -> Refusal | None:
        if method not in ("POST", "PUT", "PATCH"):
            return None
        if scope.get("path") == IMPORT_PATH and method == "POST":
            if _is_upload(headers):
                return None
            return (415, "an import is sent as application/octet-stream with an X-Local-Agent-Import header",
                    "unsupported_media_type")
        if not _is_json(headers.get("content-type")):
            return 415, "the body must be application/json", "unsupported_media_type"
        return None

    def _key_ok(self, header: str | None) -> bool:
        scheme, _, token = (header or "").partition(" ")
        offered = token.strip().encode("utf-8") if scheme.lower() == "bearer" else b""
        return hmac.compare_digest(offered, self.key or b"")

    def _limited(self, receive: Receive, limit: int) -> Receive:
        seen = 0

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            if message.get("type") == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise BodyTooLarge(limit)
            return message

        return counted
