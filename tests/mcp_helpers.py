"""Helpers for the MCP tests: the SDK's own client on `local-agent mcp`, over stdio (a process
the client starts) or streamable HTTP (a process of its own, on a free port, with an API key),
on the scripted model unless told otherwise (tests/serve_scripted.py runs any command so)."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx2
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CallToolResult, TextContent

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT_S = 120.0
API_KEY = "test-key-0123456789"
TRANSPORTS = ("stdio", "http")


def server_env(data_dir: Path, **extra: str) -> dict[str, str]:
    """What the server process is given. The SDK's stdio client passes only a few variables
    (HOME, PATH, ...), so the LOCAL_AGENT_* settings and the import path go explicitly."""
    return {"PYTHONPATH": str(ROOT), "LOCAL_AGENT_DATA_DIR": str(data_dir),
            "LOCAL_AGENT_CONFIG": str(data_dir.parent / "no-config.toml"), "LOCAL_AGENT_TODAY": "2026-03-11", **extra}


def command(*args: str, scripted: bool = True) -> list[str]:
    return [sys.executable, "-m", "tests.serve_scripted" if scripted else "local_agent", "mcp", *args]


@contextlib.asynccontextmanager
async def connected(transport: str, data_dir: Path, *args: str, scripted: bool = True,
                    stderr: Path | None = None) -> AsyncIterator[Client]:
    """A client connected to `local-agent mcp ARGS` over `transport`; the server's stderr goes to
    `stderr` (a file) when given."""
    errlog = stderr or data_dir.parent / "mcp-stderr.txt"
    if transport == "stdio":
        full = command(*args, scripted=scripted)
        params = StdioServerParameters(command=full[0], args=full[1:], env=server_env(data_dir), cwd=str(ROOT))
        with errlog.open("a", encoding="utf-8") as log:
            async with Client(stdio_client(params, errlog=log), read_timeout_seconds=TIMEOUT_S) as client:
                yield client
        return
    with http_server(data_dir, *args, scripted=scripted, stderr=errlog) as url:
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {API_KEY}"}, timeout=TIMEOUT_S)
        streams = streamable_http_client(url, http_client=http)
        async with http, Client(streams, read_timeout_seconds=TIMEOUT_S) as client:
            yield client


@contextlib.contextmanager
def http_server(data_dir: Path, *args: str, scripted: bool = True, stderr: Path | None = None) -> Iterator[str]:
    """`local-agent mcp --http --port 0 ARGS` with an API key, in a process of its own; its
    URL once it listens. Stopped with SIGTERM at the end."""
    errlog = stderr or data_dir.parent / "mcp-stderr.txt"
    environment = {**os.environ, **server_env(data_dir, LOCAL_AGENT_API_KEY=API_KEY)}
    with errlog.open("a", encoding="utf-8") as log:
        process = subprocess.Popen(command("--http", "--port", "0", *args, scripted=scripted), cwd=ROOT,
                                   stdout=subprocess.PIPE, stderr=log, text=True, env=environment)
        try:
            assert process.stdout is not None
            line = process.stdout.readline().strip()
            if not line.startswith("listening on "):
                raise RuntimeError(f"the MCP server did not start: {line!r} {errlog.read_text(encoding='utf-8')}")
            yield line.removeprefix("listening on ")
        finally:
            process.terminate()
            process.wait(60)


def text_of(result: CallToolResult) -> str:
    (block,) = result.content
    assert isinstance(block, TextContent)
    return block.text


def data_of(result: CallToolResult) -> dict[str, Any]:
    assert not result.is_error, text_of(result)
    assert result.structured_content is not None
    return result.structured_content


def files_with(folder: Path, word: str) -> list[str]:
    """The files under `folder` holding `word` (as the safety tests look for what must be gone)."""
    return sorted(str(path.relative_to(folder)) for path in folder.rglob("*")
                  if path.is_file() and word.encode() in path.read_bytes())


def rpc_lines(lines: list[dict[str, Any] | str]) -> str:
    """Messages as a client writes them on the server's stdin, one a line (a str goes as is)."""
    return "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines)
