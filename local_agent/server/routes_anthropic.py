"""Anthropic's Messages API, `POST /v1/messages` (streamed or not): the same turn, memory and
namespaces as the OpenAI route, in Anthropic's shapes. Its errors are put in Anthropic's
shape on the way out (anthropic_shape.py)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from concurrent.futures import Future
from typing import Any

from fastapi import APIRouter, Request, Response
from sse_starlette.sse import EventSourceResponse

from . import anthropic_responses as shapes
from .anthropic_request import messages_turn, parse_request
from .errors import as_api_error
from .namespaces import MEMORY_HEADER, USER_HEADER, memory_enabled, select_namespace
from .routes_openai import GONE, check_model
from .state import state_of
from .streaming import Channel, Early, End, cancel_job, watching
from .turns import ChatOutcome

router = APIRouter()
MESSAGES_PATH = "/v1/messages"


@router.post(MESSAGES_PATH, response_model=None)
async def messages(request: Request) -> Response | dict[str, Any]:
    body = parse_request(await request.body())
    state = state_of(request)
    info = state.info()
    check_model(body.model, info)
    turn = messages_turn(body, namespace=select_namespace(request.headers.get(USER_HEADER), None),
                         memory=memory_enabled(request.headers.get(MEMORY_HEADER), None),
                         context_size=info.context_size)
    channel = Channel(asyncio.get_running_loop())
    future = state.submit(channel.run(lambda ch: state.engine.chat(turn, ch.token, left=lambda: ch.gone)))
    reply = shapes.MessageReply(model=info.model)
    if body.stream:
        return await _streamed(request, future, channel, reply)
    outcome = await watching(request, asyncio.wrap_future(future), lambda: cancel_job(future, channel))
    if outcome is None:
        return Response(status_code=GONE)
    return shapes.message(reply, outcome)


async def _streamed(request: Request, future: Future[ChatOutcome], channel: Channel,
                    reply: shapes.MessageReply) -> Response:
    """Wait for the first token (so an error before it still gets its own status), then stream."""
    first = await watching(request, channel.get(), lambda: cancel_job(future, channel))
    if first is None:
        return Response(status_code=GONE)
    if isinstance(first, End) and first.error is not None:
        raise as_api_error(first.error)
    return EventSourceResponse(_events(first, channel, reply))


async def _events(first: str | Early | End, channel: Channel,
                  reply: shapes.MessageReply) -> AsyncIterator[dict[str, str]]:
    try:
        for opening in shapes.opening(reply):
            yield opening
        item, started = first, False
        while isinstance(item, str):
            text = item if started else item.lstrip()  # the answer is stripped when not streamed too
            if text:
                started = True
                yield shapes.text_delta(text)
            item = await channel.get()
        if not isinstance(item, End) or item.error is not None:  # a chat job hands over nothing early
            error = as_api_error(item.error if isinstance(item, End) and item.error else RuntimeError())
            yield shapes.error_event(error.status, error.message)
        else:
            for closing in shapes.closing(item.result):
                yield closing
    finally:
        channel.cancel()  # a client that left stops its generation at the next token
