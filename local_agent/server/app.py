"""The ASGI application: FastAPI routes and the page behind the guard (security.py)."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.middleware.cors import CORSMiddleware

from . import routes_ask, routes_imports, routes_memory, routes_openai, routes_page, routes_page_memory
from .anthropic_shape import AnthropicShape
from .errors import install_handlers
from .imports import Imports
from .page import load_files, page_router
from .routes_anthropic import router as anthropic_router
from .security import ASGIApp, Guard
from .state import ServerState, state_of

CORS_HEADERS = ["Authorization", "Content-Type", "X-Local-Agent-User", "X-Local-Agent-Memory",
                "X-Local-Agent-Import", "X-Local-Agent-Digests",
                "x-api-key", "anthropic-version", "anthropic-beta", "anthropic-dangerous-direct-browser-access"]


def create_app(state: ServerState) -> ASGIApp:
    """The application for `state`; no CORS unless origins were given."""
    app = FastAPI(title="local-agent", docs_url=None, redoc_url=None, openapi_url=None)
    app.state.server = state
    app.state.page_imports = Imports()
    install_handlers(app)
    for module in (routes_openai, routes_memory, routes_ask, routes_page, routes_page_memory, routes_imports):
        app.include_router(module.router)
    app.include_router(anthropic_router)  # Anthropic's Messages API
    app.include_router(page_router(load_files()))  # the page at / (page.py)

    @app.get("/health")
    async def health(request: Request) -> dict[str, Any]:
        server = state_of(request)
        return {"status": "ok" if server.engine.info else "loading", "waiting": server.worker.waiting,
                "busy": server.worker.busy}

    if state.options.cors_origins:
        app.add_middleware(CORSMiddleware, allow_origins=list(state.options.cors_origins),
                           allow_methods=["GET", "POST", "DELETE"], allow_headers=CORS_HEADERS)
    return AnthropicShape(Guard(app, state.options))  # x-api-key, and Anthropic's error shape
