"""The page: static files of the package (local_agent/server/static/), served at `/` with a
strict Content-Security-Policy. No build step and nothing from elsewhere: the page is plain
HTML, CSS and JavaScript modules, and may connect to this server only.

The files are read once, when the application is made, and answered from memory with an ETag
(a reload asks `If-None-Match` and gets a 304). They hold no secret, so they are served without
the API key (the page asks for it, see security.py); the Host check still applies.
"""

from __future__ import annotations

import hashlib
import mimetypes
from dataclasses import dataclass
from pathlib import Path

from fastapi import APIRouter, Request, Response

STATIC_DIR = Path(__file__).with_name("static")
STATIC_PREFIX = "/static/"
IMPORT_PATH = "/v1/local-agent/imports"  # the upload: raw bytes with IMPORT_HEADER (security.py)
IMPORT_HEADER = "x-local-agent-import"
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
       "base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Cache-Control": "no-cache",  # revalidated each load: an upgraded package is seen at once
}
TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8",
         ".html": "text/html; charset=utf-8", ".svg": "image/svg+xml", ".txt": "text/plain; charset=utf-8"}


def is_page_file(method: str, path: str) -> bool:
    """A request for one of the page's own files (served without the API key)."""
    return method in ("GET", "HEAD") and (path == "/" or path.startswith(STATIC_PREFIX))


@dataclass(frozen=True)
class StaticFile:
    body: bytes
    media_type: str
    etag: str


def load_files(folder: Path = STATIC_DIR) -> dict[str, StaticFile]:
    """Every file under `folder`, by its path relative to it ("js/main.js")."""
    files = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file() and not path.name.startswith("."):
            body = path.read_bytes()
            media = TYPES.get(path.suffix) or mimetypes.guess_type(path.name)[0] or "application/octet-stream"
            etag = '"' + hashlib.sha256(body).hexdigest()[:20] + '"'
            files[path.relative_to(folder).as_posix()] = StaticFile(body, media, etag)
    return files


def page_router(files: dict[str, StaticFile]) -> APIRouter:
    router = APIRouter()

    @router.api_route("/", methods=["GET", "HEAD"], include_in_schema=False)
    async def index(request: Request) -> Response:
        return _answer(request, files.get("index.html"))

    @router.api_route(STATIC_PREFIX + "{name:path}", methods=["GET", "HEAD"], include_in_schema=False)
    async def static(name: str, request: Request) -> Response:
        return _answer(request, files.get(name))

    return router


def _answer(request: Request, found: StaticFile | None) -> Response:
    if found is None:
        return Response("no such file\n", status_code=404, media_type="text/plain", headers=HEADERS)
    headers = {**HEADERS, "ETag": found.etag}
    if request.headers.get("if-none-match") == found.etag:
        return Response(status_code=304, headers=headers)
    return Response(found.body, media_type=found.media_type, headers=headers)
