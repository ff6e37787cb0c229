"""The page's upload of past conversations (a ChatGPT export or JSON Lines) and its job.

The file comes as the raw body of a POST, `application/octet-stream` with an
`X-Local-Agent-Import: NAME` header (the file's name, URL-encoded), never as a form: a form
from another site cannot set that header, and a cross-site fetch that sets it needs a CORS
preflight, which fails unless --cors-origin allows the site. Its size limit is --max-import
(security.py), apart from --max-body, which stays small for chat. `X-Local-Agent-Digests: off`
skips the per-session digests (they take the model about a second a session).
"""

from __future__ import annotations

import asyncio
from typing import Any
from urllib.parse import unquote

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from ..conversations.chat_import import read_chat_bytes
from .errors import APIError
from .imports import ImportBusy, ImportJob, Imports
from .page import IMPORT_HEADER, IMPORT_PATH
from .state import state_of
from .worker import QueueFull

router = APIRouter()
DIGESTS_HEADER = "x-local-agent-digests"
MAX_NAME = 200


def imports_of(request: Request) -> Imports:
    imports: Imports = request.app.state.page_imports
    return imports


@router.post(IMPORT_PATH, status_code=202)
async def start_import(request: Request) -> JSONResponse:
    state = state_of(request)
    state.info()
    if not state.engine.memory_on:
        raise APIError(409, "this server runs without memory (--no-memory): there is nowhere to import to",
                       code="memory_off")
    name = _file_name(request.headers.get(IMPORT_HEADER, ""))
    digests = request.headers.get(DIGESTS_HEADER, "on").strip().lower() not in ("off", "0", "false", "no")
    body = bytearray()
    async for chunk in request.stream():  # the guard stops it past --max-import
        body.extend(chunk)
    chats = await asyncio.to_thread(read_chat_bytes, bytes(body), name=name)
    del body
    try:
        job = imports_of(request).start(state, name, chats, digests=digests)
    except ImportBusy as exc:
        raise APIError(409, f"{exc}; wait for it or cancel it", code="import_running") from None
    except QueueFull as exc:
        raise APIError(503, f"the server is busy: {exc}", code="queue_full") from None
    return JSONResponse(job.to_dict(), status_code=202)


@router.get(IMPORT_PATH)
async def last_import(request: Request) -> dict[str, Any]:
    """The running import, or the last one (`data` is null when there was none)."""
    job = imports_of(request).last
    return {"object": "import.last", "data": job.to_dict() if job else None}


@router.get(IMPORT_PATH + "/{ident}")
async def import_status(ident: str, request: Request) -> dict[str, Any]:
    return _job(request, ident).to_dict()


@router.delete(IMPORT_PATH + "/{ident}")
async def cancel_import(ident: str, request: Request) -> dict[str, Any]:
    """Stop before the next session; what was stored stays (importing again adds the rest)."""
    job = _job(request, ident)
    job.cancel_asked.set()
    return job.to_dict()


def _job(request: Request, ident: str) -> ImportJob:
    job = imports_of(request).get(ident)
    if job is None:
        raise APIError(404, "no such import", code="not_found")
    return job


def _file_name(header: str) -> str:
    """The name the page sent, for messages: printable, at most MAX_NAME characters."""
    name = "".join(ch for ch in unquote(header.strip()) if ch.isprintable())[:MAX_NAME]
    return name or "upload"
