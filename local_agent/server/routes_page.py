"""What the page needs besides chat (which is the warm `ask` route, routes_ask.py): the
server's settings, and the conversations `local-agent chat` keeps (list, read, title, delete).

Conversations are the owner's session files, the same ones `chat --session NAME` resumes.
Reading them runs off the model's thread (a session file is written atomically, under a lock
that every writer takes), so the sidebar answers while a long answer streams; deleting one
with what it taught goes through the memory service on the model's thread.
"""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Query, Request, Response

from .. import __version__
from ..errors import InputError
from ..memory.service import SessionDeleted
from ..memory.sessions import Session, SessionStore
from ..models.advice import model_advice
from .discovery import ASK_PATH, load_identity
from .page_schemas import SessionTitle
from .routes_openai import GONE
from .state import ServerState, state_of

router = APIRouter()
SESSIONS_PATH = "/v1/local-agent/sessions"


@router.get("/v1/local-agent/info")
async def info(request: Request) -> dict[str, Any]:
    """The model, the backend and why, the memory budget: the page's settings view. `identity`
    is what an `ask` must expect (discovery.load_identity)."""
    state = state_of(request)
    loaded = state.info()
    settings = state.engine.settings
    choice = state.engine.choice()
    advice = model_advice(settings.model, settings.models_dir)  # the default is tiny: say so, and what to pull
    return {
        "object": "local_agent.info", "version": __version__, "model": loaded.model, "backend": choice.backend,
        "device": choice.device, "reason": choice.reason, "context_size": loaded.context_size,
        "embedding_model": loaded.embedding_model, "memory": state.engine.memory_on,
        "incognito": settings.incognito, "memory_tokens": settings.memory_tokens, "recall_k": settings.recall_k,
        "max_tokens": settings.max_tokens, "tools": settings.tools_on, "data_dir": str(settings.data_dir),
        "api_key": state.options.api_key is not None, "max_import": state.options.max_import,
        "ask_path": ASK_PATH, "identity": load_identity(settings),
        "model_note": advice.to_dict() if advice is not None else None,
    }


@router.get(SESSIONS_PATH)
async def list_sessions(request: Request) -> dict[str, Any]:
    found, skipped = await asyncio.to_thread(_sessions(state_of(request)).scan)
    return {"object": "list", "data": [session_summary(session) for session in found], "skipped": skipped}


@router.get(SESSIONS_PATH + "/{name}")
async def read_session(name: str, request: Request) -> dict[str, Any]:
    session = await asyncio.to_thread(_sessions(state_of(request)).load, name)
    return {**session_summary(session), "revision": session.revision,
            "turns": [turn.to_dict() for turn in session.turns]}


@router.post(SESSIONS_PATH + "/{name}")
async def retitle_session(name: str, body: SessionTitle, request: Request) -> dict[str, Any]:
    session = await asyncio.to_thread(_sessions(state_of(request)).set_title, name, body.title)
    return session_summary(session)


@router.delete(SESSIONS_PATH + "/{name}", response_model=None)
async def delete_session(name: str, request: Request,
                         forget: bool = Query(False, description="forget what it taught")) -> Response | dict[str, Any]:
    state = state_of(request)
    state.info()
    deleted = await state.run(request, lambda: _delete(state, name, forget))
    if deleted is None:
        return Response(status_code=GONE)
    return {"object": "session", "name": deleted.name, "deleted": True,
            "forgotten": [record.id for record in deleted.forgotten], "sessions_edited": list(deleted.sessions_edited)}


def session_summary(session: Session) -> dict[str, Any]:
    return {"object": "session", "name": session.name, "title": session.title, "created": session.created,
            "updated": session.updated, "turns": len(session.turns)}


def _delete(state: ServerState, name: str, forget: bool) -> SessionDeleted:
    """Through the memory service; a server without memory deletes the transcript only."""
    if state.engine.memory_on:
        return state.engine.memory_service(None).delete_session(name, forget_taught=forget)
    if forget:
        raise InputError("this server runs without memory (--no-memory): there is nothing it taught to forget")
    _sessions(state).delete(name)
    return SessionDeleted(name)


def _sessions(state: ServerState) -> SessionStore:
    return SessionStore(state.engine.settings.data_dir)
