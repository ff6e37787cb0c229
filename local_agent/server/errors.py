"""Errors in OpenAI's shape, `{"error": {"message", "type", "param", "code"}}`, with the right
status. Nothing here echoes what a client sent: messages name the field, never its value."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..errors import (
    ConfigError,
    ContextOverflowError,
    InputError,
    LocalAgentError,
    NotFoundError,
    StoreBusyError,
)

log = logging.getLogger(__name__)

TYPES = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
         404: "invalid_request_error", 405: "invalid_request_error", 409: "invalid_request_error",
         413: "invalid_request_error", 415: "invalid_request_error", 429: "rate_limit_error",
         503: "server_error"}


class APIError(Exception):
    """A request the server answers with an error status."""

    def __init__(self, status: int, message: str, *, code: str | None = None, param: str | None = None,
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.code = code
        self.param = param
        self.headers = headers


def error_body(status: int, message: str, code: str | None = None, param: str | None = None) -> dict[str, Any]:
    return {"error": {"message": message, "type": TYPES.get(status, "server_error"), "param": param, "code": code}}


def error_response(status: int, message: str, code: str | None = None, param: str | None = None,
                   headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse(error_body(status, message, code, param), status_code=status, headers=headers)


def from_local_error(exc: LocalAgentError) -> APIError:
    """An error of the product as an API error; `code` is its class name, so the warm-ask
    client can raise the same class the in-process `ask` would."""
    code = type(exc).__name__
    message = " ".join(str(exc).split()) or code
    if isinstance(exc, NotFoundError):
        return APIError(404, message, code=code)
    if isinstance(exc, (InputError, ConfigError, ContextOverflowError)):
        return APIError(400, message, code=code)
    if isinstance(exc, StoreBusyError):
        return APIError(503, message, code=code, headers={"Retry-After": "1"})
    return APIError(500, message, code=code)


def as_api_error(exc: BaseException) -> APIError:
    """Any exception from a job as an API error; unexpected ones say only their type."""
    if isinstance(exc, APIError):
        return exc
    if isinstance(exc, LocalAgentError):
        return from_local_error(exc)
    log.error("request failed: %s", type(exc).__name__, exc_info=log.isEnabledFor(logging.DEBUG))
    return APIError(500, f"internal error ({type(exc).__name__}); see the server's log", code="internal_error")


def _validation_message(exc: RequestValidationError) -> tuple[str, str | None]:
    from .invalid import describe, field_names
    from .schemas import REQUEST_MODELS

    return describe(exc.errors(), field_names(REQUEST_MODELS))


def install_handlers(app: FastAPI) -> None:
    """Every error leaves as OpenAI-shaped JSON: validation 400 (not FastAPI's 422), routing
    404/405, and 500 without a traceback."""

    async def api_error(_: Request, exc: Exception) -> JSONResponse:
        err = exc if isinstance(exc, APIError) else as_api_error(exc)
        return error_response(err.status, err.message, err.code, err.param, err.headers)

    async def invalid(_: Request, exc: Exception) -> JSONResponse:
        if not isinstance(exc, RequestValidationError):
            return await api_error(_, exc)
        message, param = _validation_message(exc)
        return error_response(400, message, "invalid_request", param)

    async def http_error(_: Request, exc: Exception) -> JSONResponse:
        if not isinstance(exc, StarletteHTTPException):
            return await api_error(_, exc)
        detail = exc.detail if isinstance(exc.detail, str) else "request refused"
        if exc.status_code == 404:
            detail = "no such endpoint"
        elif exc.status_code == 400:
            detail = "the body could not be read as JSON"
        headers = dict(exc.headers) if exc.headers else None
        return error_response(exc.status_code, detail, getattr(exc, "code", None), headers=headers)

    app.add_exception_handler(APIError, api_error)
    app.add_exception_handler(LocalAgentError, api_error)
    app.add_exception_handler(RequestValidationError, invalid)
    app.add_exception_handler(StarletteHTTPException, http_error)
    app.add_exception_handler(Exception, api_error)
