"""The OpenAI-compatible endpoints: chat completions (streamed or not), models, embeddings."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from concurrent.futures import Future
from typing import Any

from fastapi import APIRouter, Request, Response
from sse_starlette.sse import EventSourceResponse

from .engine import EngineInfo
from .errors import APIError, as_api_error, error_body
from .namespaces import MEMORY_HEADER, USER_HEADER, memory_enabled, select_namespace
from .responses import Reply, call_chunks, chunk, completion, embeddings, final_chunk, model_list, usage_chunk
from .schemas import MAX_EMBED_INPUTS, ChatRequest, EmbeddingsRequest
from .state import state_of
from .streaming import Channel, Early, End, cancel_job, watching
from .turns import ChatOutcome, chat_turn

router = APIRouter()
GONE = 499  # nginx's "client closed request": nobody reads it


def _json(data: dict[str, Any]) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def check_model(requested: str | None, info: EngineInfo) -> None:
    if requested and requested not in (info.model, *info.aliases):
        raise APIError(404, f"this server serves the model {info.model!r} only", code="model_not_found",
                       param="model")


@router.get("/v1/models")
async def models(request: Request) -> dict[str, Any]:
    info = state_of(request).info()
    return model_list([info.model, info.embedding_model], info.created)


@router.post("/v1/chat/completions", response_model=None)
async def chat_completions(body: ChatRequest, request: Request) -> Response | dict[str, Any]:
    state = state_of(request)
    info = state.info()
    check_model(body.model, info)
    turn = chat_turn(
        body, namespace=select_namespace(request.headers.get(USER_HEADER), body.user),
        memory=memory_enabled(request.headers.get(MEMORY_HEADER), body.memory), context_size=info.context_size,
    )
    channel = Channel(asyncio.get_running_loop())
    future = state.submit(channel.run(lambda ch: state.engine.chat(turn, ch.token, left=lambda: ch.gone)))
    reply = Reply(model=info.model)
    if body.stream:
        include_usage = bool(body.stream_options and body.stream_options.include_usage)
        return await _streamed(request, future, channel, reply, include_usage)
    outcome = await watching(request, asyncio.wrap_future(future), lambda: cancel_job(future, channel))
    if outcome is None:
        return Response(status_code=GONE)
    return completion(reply, outcome)


async def _streamed(request: Request, future: Future[ChatOutcome], channel: Channel, reply: Reply,
                    include_usage: bool) -> Response:
    """Wait for the first token (so an error before it still gets its own status), then stream."""
    first = await watching(request, channel.get(), lambda: cancel_job(future, channel))
    if first is None:
        return Response(status_code=GONE)
    if isinstance(first, End) and first.error is not None:
        raise as_api_error(first.error)
    return EventSourceResponse(_events(first, channel, reply, include_usage))


async def _events(first: str | Early | End, channel: Channel, reply: Reply,
                  include_usage: bool) -> AsyncIterator[str]:
    try:
        yield _json(chunk(reply, {"role": "assistant", "content": ""}))
        item, started = first, False
        while isinstance(item, str):
            text = item if started else item.lstrip()  # the answer is stripped when not streamed too
            if text:
                started = True
                yield _json(chunk(reply, {"content": text}))
            item = await channel.get()
        if not isinstance(item, End) or item.error is not None:  # a chat job hands over nothing early
            error = as_api_error(item.error if isinstance(item, End) and item.error else RuntimeError())
            yield _json(error_body(error.status, error.message, error.code))
        else:
            for body in call_chunks(reply, item.result.calls):
                yield _json(body)
            yield _json(final_chunk(reply, item.result))
            if include_usage:
                yield _json(usage_chunk(reply, item.result))
        yield "[DONE]"
    finally:
        channel.cancel()  # a client that left stops its generation at the next token


@router.post("/v1/embeddings", response_model=None)
async def embeddings_route(body: EmbeddingsRequest, request: Request) -> Response | dict[str, Any]:
    state = state_of(request)
    info = state.info()
    if body.model and body.model not in (info.embedding_model, *info.embedding_aliases):
        raise APIError(404, f"the embedding model here is {info.embedding_model!r}", code="model_not_found",
                       param="model")
    texts = [body.input] if isinstance(body.input, str) else list(body.input)
    if not texts or len(texts) > MAX_EMBED_INPUTS or not all(text.strip() for text in texts):
        raise APIError(400, f"input: 1 to {MAX_EMBED_INPUTS} non-empty texts", code="invalid_request", param="input")
    vectors = await state.run(request, lambda: state.engine.embed(texts))
    if vectors is None:
        return Response(status_code=GONE)
    if body.dimensions is not None and body.dimensions != vectors.shape[1]:
        raise APIError(400, f"dimensions: this model makes {vectors.shape[1]}-dimensional vectors only",
                       code="invalid_request", param="dimensions")
    return embeddings(vectors, info.embedding_model, body.encoding_format, sum(len(t.split()) for t in texts))
