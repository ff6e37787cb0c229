"""The ASGI application: FastAPI routes behind the guard (security.py)."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.middleware.cors import CORSMiddleware

from . import routes_ask, routes_memory, routes_openai
from .errors import install_handlers
from .security import ASGIApp, Guard
from .state import ServerState, state_of

CORS_HEADERS = ["Authorization", "Content-Type", "X-Local-Agent-User", "X-Local-Agent-Memory"]


def create_app(state: ServerState) -> ASGIApp:
    """The application for `state`; no CORS unless origins were given."""
    app = FastAPI(title="local-agent", docs_url=None, redoc_url=None, openapi_url=None)
    app.state.server = state
    install_handlers(app)
    for module in (routes_openai, routes_memory, routes_ask):
        app.include_router(module.router)

    @app.get("/health")
    async def health(request: Request) -> dict[str, Any]:
        server = state_of(request)
        return {"status": "ok" if server.engine.info else "loading", "waiting": server.worker.waiting}

    if state.options.cors_origins:
        app.add_middleware(CORSMiddleware, allow_origins=list(state.options.cors_origins),
                           allow_methods=["GET", "POST", "DELETE"], allow_headers=CORS_HEADERS)
    return Guard(app, state.options)
