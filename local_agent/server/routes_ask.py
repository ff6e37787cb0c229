"""The warm `ask`: the CLI's question answered on the loaded model, streamed as JSON lines.

Each line is `{"token": "..."}` while the answer is written, then one `{"result": {...},
"memory_error": ...}` (the record `ask --json` prints) or `{"error": {...}}`. A server started
with other load-time settings answers 409, and the CLI then answers in-process.

With `wait_for_memory: false` (plain `ask`, which prints only the answer) the result comes as
soon as the answer is complete, with `"memory": "pending"`: the CLI exits while the server
stores and distills the turn, which it finishes before it serves anything else.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

from fastapi import APIRouter, Request
from fastapi.responses import StreamingResponse

from .discovery import ASK_PATH, load_identity, mismatch
from .errors import APIError, as_api_error, error_body
from .namespaces import USER_HEADER, refuse_namespace
from .schemas import AskRequest
from .state import state_of
from .streaming import Channel, Early
from .turns import AskTurn

router = APIRouter()


@router.post(ASK_PATH)
async def ask(body: AskRequest, request: Request) -> StreamingResponse:
    state = state_of(request)
    state.info()
    refuse_namespace(request.headers.get(USER_HEADER), body.user)
    differ = mismatch(body.expect, load_identity(state.engine.settings))
    if differ:
        raise APIError(409, f"this server was started with other settings ({', '.join(differ)})",
                       code="settings_mismatch")
    if body.memory and not state.engine.memory_on:
        raise APIError(409, "this server runs without memory (--no-memory)", code="settings_mismatch")
    turn = AskTurn(message=body.message, session=body.session, system=body.system, memory=body.memory,
                   settings=body.settings, wait_for_memory=body.wait_for_memory)
    channel = Channel(asyncio.get_running_loop())
    state.submit(channel.run(lambda ch: state.engine.ask(turn, ch.token,
                                                         None if turn.wait_for_memory else ch.early)))
    return StreamingResponse(_lines(channel), media_type="application/x-ndjson")


async def _lines(channel: Channel) -> AsyncIterator[str]:
    try:
        item = await channel.get()
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
