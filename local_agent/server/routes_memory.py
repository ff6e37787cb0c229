"""Memory over HTTP, per namespace: list, add, search, forget.

The namespace is the `X-Local-Agent-User` header, or the body's `user` on the routes with a
body (add, search), checked as chat completions check it (namespaces.select_namespace).
Search is a POST so that queries, which say what the user asked, never reach access logs.
"""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Query, Request, Response

from .namespaces import USER_HEADER, select_namespace
from .responses import memory_list
from .routes_openai import GONE
from .schemas import MemoryAdd, MemorySearch
from .state import state_of

router = APIRouter()


def _namespace(request: Request, body_user: str | None = None) -> str | None:
    return select_namespace(request.headers.get(USER_HEADER), body_user)


@router.get("/v1/memories", response_model=None)
async def list_memories(request: Request, kind: Literal["fact", "turn", "digest", "all"] = "fact",
                        limit: int = Query(0, ge=0, le=1_000_000)) -> Response | dict[str, Any]:
    state = state_of(request)
    state.info()
    namespace = _namespace(request)
    records = await state.run(request, lambda: state.engine.memories(namespace, None if kind == "all" else kind, limit))
    return Response(status_code=GONE) if records is None else memory_list(records)


@router.post("/v1/memories", response_model=None)
async def add_memory(body: MemoryAdd, request: Request) -> Response | dict[str, Any]:
    state = state_of(request)
    state.info()
    namespace = _namespace(request, body.user)
    record = await state.run(request, lambda: state.engine.remember(namespace, body.text))
    return Response(status_code=GONE) if record is None else record


@router.post("/v1/memories/search", response_model=None)
async def search_memories(body: MemorySearch, request: Request) -> Response | dict[str, Any]:
    state = state_of(request)
    state.info()
    namespace = _namespace(request, body.user)
    hits = await state.run(request, lambda: state.engine.search(namespace, body.query, body.limit))
    return Response(status_code=GONE) if hits is None else memory_list(hits)


@router.delete("/v1/memories/{ident}", response_model=None)
async def forget_memory(ident: str, request: Request) -> Response | dict[str, Any]:
    state = state_of(request)
    state.info()
    namespace = _namespace(request)
    record = await state.run(request, lambda: state.engine.forget(namespace, ident))
    if record is None:
        return Response(status_code=GONE)
    return {"id": record["id"], "object": "memory", "deleted": True}
