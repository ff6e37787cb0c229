"""A stand-in Hugging Face hub on 127.0.0.1: repositories held in memory, served in the hub's
URL layout, so that `models pull` runs the real huggingface_hub code path against it
(HF_ENDPOINT points there).

What it serves, as the hub does: `GET /api/models/OWNER/REPO/revision/REV?blobs=true` (the
commit, and each file's size, git blob id, and LFS sha256 for large files; `gated`), `HEAD` and
`GET /OWNER/REPO/resolve/REV/FILE` (X-Repo-Commit, ETag, X-Linked-Etag and X-Linked-Size for
LFS files; Range requests answered 206), and the hub's error headers (X-Error-Code RepoNotFound,
GatedRepo, EntryNotFound). It serves plain HTTP only: the Xet transfer path is not exercised.

Behaviours a test can switch on: serve a file with one byte changed (`corrupt`), stop after
some bytes on the first download of a file and hang until released (`stall_after`), and send
data slowly (`delay_per_chunk`). Hostile ones: any value as the commit id (`commit`, also sent
as X-Repo-Commit), any file name (a key of `files`), a redirect of a file's address to any
location (`redirect`), and a drip: the first chunk of a file, then one byte every so many
seconds until released (`drip`). Every request is logged.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

LFS_SUFFIXES = (".gguf", ".safetensors")
CHUNK = 16 * 1024


@dataclass
class Repo:
    files: dict[str, bytes]
    commit: Any = "0123456789abcdef0123456789abcdef01234567"  # a hostile hub sends anything
    gated: bool = False
    token: str | None = None  # the token that opens a gated repo
    corrupt: set[str] = field(default_factory=set)
    stall_after: dict[str, int] = field(default_factory=dict)  # file -> bytes sent before hanging, once
    redirect: dict[str, str] = field(default_factory=dict)  # file -> the Location its address answers with
    drip: dict[str, float] = field(default_factory=dict)  # file -> seconds between bytes after the first chunk

    def sibling(self, name: str) -> dict[str, Any]:
        data = self.files[name]
        entry: dict[str, Any] = {"rfilename": name, "size": len(data), "blobId": git_blob_id(data)}
        if name.endswith(LFS_SUFFIXES):
            entry["lfs"] = {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data), "pointerSize": 134}
            entry["blobId"] = hashlib.sha1(b"lfs pointer " + name.encode(), usedforsecurity=False).hexdigest()
            entry["size"] = 134
        return entry


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    range: str | None
    authorized: bool


def git_blob_id(data: bytes) -> str:
    return hashlib.sha1(f"blob {len(data)}\0".encode() + data, usedforsecurity=False).hexdigest()


class StandinHub:
    def __init__(self) -> None:
        self.repos: dict[str, Repo] = {}
        self.log: list[Request] = []
        self.release = threading.Event()  # set: stalled downloads end
        self.delay_per_chunk = 0.0
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def start(self) -> StandinHub:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.release.set()
        self._server.shutdown()
        self._server.server_close()

    def downloads(self, name: str) -> list[Request]:
        """The GET requests for a file's bytes."""
        return [r for r in self.log if r.method == "GET" and "/resolve/" in r.path and r.path.endswith("/" + name)]


_RESOLVE = re.compile(r"/(?P<repo>[^/]+/[^/]+)/resolve/(?P<rev>[^/]+)/(?P<file>.+)")
_API = re.compile(r"/api/models/(?P<repo>[^/]+/[^/]+)(?:/revision/(?P<rev>[^/?]+))?")


def _handler(hub: StandinHub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

        def do_GET(self) -> None:
            self._answer(body=True)

        def do_HEAD(self) -> None:
            self._answer(body=False)

        def _answer(self, body: bool) -> None:
            path = self.path.split("?")[0]
            auth = self.headers.get("Authorization")
            hub.log.append(Request(self.command, path, self.headers.get("Range"), auth is not None))
            if match := _API.fullmatch(path):
                self._model_info(match["repo"])
            elif match := _RESOLVE.fullmatch(path):
                self._resolve(match["repo"], match["file"], body, auth)
            else:
                self._error(404, "RepoNotFound", "no such route")

        def _model_info(self, repo_id: str) -> None:
            repo = hub.repos.get(repo_id)
            if repo is None:
                self._error(404, "RepoNotFound", "Repository not found")
                return
            info = {"id": repo_id, "modelId": repo_id, "sha": repo.commit, "private": False,
                    "gated": "manual" if repo.gated else False,
                    "siblings": [repo.sibling(name) for name in sorted(repo.files)]}
            self._send(200, json.dumps(info).encode(), {"Content-Type": "application/json"})

        def _resolve(self, repo_id: str, name: str, body: bool, auth: str | None) -> None:
            repo = hub.repos.get(repo_id)
            if repo is None:
                self._error(401, "RepoNotFound", "Repository not found")
                return
            if repo.gated and auth != f"Bearer {repo.token}":
                self._error(401, "GatedRepo", f"Access to model {repo_id} is restricted")
                return
            if name in repo.redirect:  # as the hub sends a large file to its CDN: with its headers
                known = self._file_headers(repo, name) if name in repo.files else {"X-Repo-Commit": str(repo.commit)}
                self._send(302, b"", {**known, "Location": repo.redirect[name]})
                return
            if name not in repo.files:
                self._error(404, "EntryNotFound", "Entry not found", {"X-Repo-Commit": str(repo.commit)})
                return
            data = repo.files[name]
            if name in repo.corrupt:
                data = bytes([data[0] ^ 0xFF]) + data[1:]
            headers = self._file_headers(repo, name)
            if not body:
                self._send(200, b"", {**headers, "Content-Length": str(len(data))}, head=True)
                return
            self._send_file(repo, name, data, headers)

        def _file_headers(self, repo: Repo, name: str) -> dict[str, str]:
            sibling = repo.sibling(name)
            headers = {"X-Repo-Commit": str(repo.commit), "Accept-Ranges": "bytes"}
            if "lfs" in sibling:
                etag = f'"{sibling["lfs"]["sha256"]}"'
                headers.update({"ETag": etag, "X-Linked-Etag": etag, "X-Linked-Size": str(sibling["lfs"]["size"])})
            else:
                headers["ETag"] = f'"{sibling["blobId"]}"'
            return headers

        def _send_file(self, repo: Repo, name: str, data: bytes, headers: dict[str, str]) -> None:
            start = 0
            if ranged := re.fullmatch(r"bytes=(\d+)-", self.headers.get("Range") or ""):
                start = int(ranged[1])
                headers["Content-Range"] = f"bytes {start}-{len(data) - 1}/{len(data)}"
            status = 206 if start else 200
            self.send_response(status)
            for key, value in {**headers, "Content-Length": str(len(data) - start)}.items():
                self.send_header(key, value)
            self.end_headers()
            if name in repo.drip:
                self._drip(data[start:], repo.drip[name])
                return
            stall = repo.stall_after.pop(name, None)
            self._write(data[start: start + stall] if stall is not None else data[start:])
            if stall is not None:
                hub.release.wait(timeout=60)  # the client is stopped meanwhile
                self.close_connection = True

        def _write(self, data: bytes) -> None:
            try:
                for offset in range(0, len(data), CHUNK):
                    self.wfile.write(data[offset: offset + CHUNK])
                    self.wfile.flush()
                    if hub.delay_per_chunk:
                        time.sleep(hub.delay_per_chunk)
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True

        def _drip(self, data: bytes, interval: float) -> None:
            """The first chunk, then a byte every `interval` seconds until released or done."""
            self._write(data[:CHUNK])
            for offset in range(CHUNK, len(data)):
                if hub.release.wait(timeout=interval):
                    break
                self._write(data[offset: offset + 1])
                if self.close_connection:
                    break
            self.close_connection = True

        def _error(self, status: int, code: str, message: str, extra: dict[str, str] | None = None) -> None:
            body = json.dumps({"error": message}).encode()
            self._send(status, body, {"X-Error-Code": code, "X-Error-Message": message,
                                      "Content-Type": "application/json", **(extra or {})})

        def _send(self, status: int, body: bytes, headers: dict[str, str], head: bool = False) -> None:
            self.send_response(status)
            for key, value in headers.items():
                self.send_header(key, value)
            if "Content-Length" not in headers:
                self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if not head and self.command != "HEAD":
                self.wfile.write(body)

    return Handler
