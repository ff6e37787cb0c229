"""The warm `ask`: the CLI's question answered on the loaded model, streamed as JSON lines.

Each line is `{"token": "..."}` while the answer is written, then one `{"result": {...},
"memory_error": ...}` (the record `ask --json` prints) or `{"error": {...}}`. A server started
with other load-time settings answers 409, and the CLI then answers in-process.

With `wait_for_memory: false` (plain `ask`, which prints only the answer) the result comes as
soon as the answer is complete, with `"memory": "pending"`: the CLI exits while the server
stores and distills the turn, which it finishes before it serves anything else.

A request the ask cannot take (an overlong message, a session name or setting it refuses, an
error before the first token) is answered with its 4xx status and an OpenAI-shaped error that
names the field, never the value sent.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

from fastapi import APIRouter, Request, Response
from fastapi.responses import StreamingResponse

from ..config import Settings, with_overrides
from ..errors import LocalAgentError
from ..limits import message_problem
from ..memory.sessions import validate_session_name
from .discovery import ASK_PATH, CALL_SETTINGS, load_identity, mismatch
from .errors import APIError, as_api_error, error_body
from .namespaces import USER_HEADER, refuse_namespace
from .schemas import AskRequest
from .state import state_of
from .streaming import Channel, Early, End, cancel_job, watching
from .turns import AskTurn

router = APIRouter()
GONE = 499  # the client left before the answer began


@router.post(ASK_PATH, response_model=None)
async def ask(body: AskRequest, request: Request) -> Response:
    state = state_of(request)
    state.info()
    refuse_namespace(request.headers.get(USER_HEADER), body.user)
    differ = mismatch(body.expect, load_identity(state.engine.settings))
    if differ:
        raise APIError(409, f"this server was started with other settings ({', '.join(differ)})",
                       code="settings_mismatch")
    if body.memory and not state.engine.memory_on:
        raise APIError(409, "this server runs without memory (--no-memory)", code="settings_mismatch")
    check_request(body, state.engine.settings)
    turn = AskTurn(message=body.message, session=body.session, system=body.system, memory=body.memory,
                   settings=body.settings, wait_for_memory=body.wait_for_memory)
    channel = Channel(asyncio.get_running_loop())
    future = state.submit(channel.run(lambda ch: state.engine.ask(turn, ch.token,
                                                                  None if turn.wait_for_memory else ch.early)))
    first = await watching(request, channel.get(), lambda: cancel_job(future, channel))
    if first is None:
        return Response(status_code=GONE)
    if isinstance(first, End) and first.error is not None:  # refused before the answer began: its own status
        raise as_api_error(first.error)
    return StreamingResponse(_lines(first, channel), media_type="application/x-ndjson")


def check_request(body: AskRequest, settings: Settings) -> None:
    """APIError 400 for a message, session or settings the ask cannot take, before it is
    queued; the messages name the field, never the value sent."""
    for name, text in (("message", body.message), ("system", body.system or "")):
        problem = message_problem(text)
        if problem:
            raise APIError(400, f"{name}: {problem}", code="InputError", param=name)
    if body.session is not None:
        try:
            validate_session_name(body.session)
        except LocalAgentError:
            raise APIError(400, "session: not a valid session name (1-64 letters, digits, '.', '_' or '-')",
                           code="InputError", param="session") from None
    unknown = sorted(set(body.settings) - set(CALL_SETTINGS))
    if unknown:
        raise APIError(400, f"settings: an unknown setting (known: {', '.join(CALL_SETTINGS)})", code="InputError",
                       param="settings")
    for name, value in body.settings.items():
        try:
            with_overrides(settings, {name: value}, "ask")
        except LocalAgentError:
            raise APIError(400, f"settings.{name}: not a valid value", code="InputError",
                           param=f"settings.{name}") from None
    try:
        with_overrides(settings, body.settings, "ask")
    except LocalAgentError:
        raise APIError(400, "settings: these values do not go together", code="InputError", param="settings") from None


async def _lines(first: str | Early | End, channel: Channel) -> AsyncIterator[str]:
    try:
        item = first
        while isinstance(item, str):
            yield json.dumps({"token": item}, ensure_ascii=False) + "\n"
            item = await channel.get()
        if isinstance(item, Early):
            yield json.dumps({"result": item.result, "memory_error": None, "memory": "pending"},
                             ensure_ascii=False) + "\n"
        elif item.error is not None:
            error = as_api_error(item.error)
            yield json.dumps(error_body(error.status, error.message, error.code)) + "\n"
        else:
            record, memory_error = item.result
            yield json.dumps({"result": record, "memory_error": memory_error}, ensure_ascii=False) + "\n"
    finally:
        channel.cancel()  # the CLI left (Ctrl-C): the answer stops, as in-process
