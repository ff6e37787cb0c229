"""The user's MCP servers as tools: started on first use, called from the tool loop's threads,
stopped with the process.

The SDK's client is async and each client must be entered and exited in the same task, so
one event loop runs on a thread of its own, and each server lives in one task on it: the task
enters the client (which starts the server's process), lists its tools, waits to be told to
stop, and exits the client (which ends the process: stdin closed, then terminate, then kill,
within the SDK's own short waits). A call from the tool loop is sent to that loop and waited
for with the call's time limit.

A server's stderr goes to a log file (never the terminal); a server that fails to start, or
does not answer within `start_timeout`, is reported in one line and left out. `close()` stops
them all within `stop_timeout` seconds.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from ..errors import ToolError
from ..process.files import ensure_private_dir
from .base import Tool
from .mcp_commands import ServerCommand
from .mcp_schema import description, parameters, result_text, summary

log = logging.getLogger(__name__)
Report = Callable[[str], None]


@dataclass
class _Live:
    """One server's task and, once it started, its client and tools (as dicts)."""

    server: ServerCommand
    ready: concurrent.futures.Future[list[dict[str, Any]]] = field(default_factory=concurrent.futures.Future)
    task: concurrent.futures.Future[None] | None = None
    client: Any = None
    stop: asyncio.Event | None = None


def one_line(exc: BaseException) -> str:
    """An exception (the first of a group) as one short line."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    text = " ".join(str(exc).split())[:200]
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class McpServers:
    """The servers in `servers`; `report` gets one line per server that failed."""

    def __init__(self, servers: Sequence[ServerCommand], log_path: Path, *, report: Report = log.warning,
                 start_timeout: float = 20.0, stop_timeout: float = 6.0) -> None:
        self.servers = list(servers)
        self.log_path = Path(log_path)
        self.report = report
        self.start_timeout = start_timeout
        self.stop_timeout = stop_timeout
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._live: dict[str, _Live] = {}
        self._tools: list[Tool] | None = None
        self._lock = threading.Lock()
        self._errlog: TextIO | None = None
        self._calls: set[concurrent.futures.Future[Any]] = set()
        self.summaries: dict[str, str] = {}  # tool name -> what it does, for routing (mcp_route.py)

    # -- starting ---------------------------------------------------------------------------
    def tools(self, taken: Sequence[str] = ()) -> list[Tool]:
        """The tools of every server that started (started now, the first time); names in
        `taken` (the built-in tools') get the server's name in front."""
        with self._lock:
            if self._tools is None:
                self._tools = self._start_all(set(taken))
            return list(self._tools)

    def _start_all(self, taken: set[str]) -> list[Tool]:
        loop = self._start_loop()
        for server in self.servers:
            live = _Live(server)
            self._live[server.name] = live
            live.task = asyncio.run_coroutine_threadsafe(self._hold(live), loop)
        deadline = time.monotonic() + self.start_timeout
        tools: list[Tool] = []
        for live in self._live.values():
            try:
                listed = live.ready.result(timeout=max(0.0, deadline - time.monotonic()))
            except concurrent.futures.TimeoutError:
                self._give_up(live, f"no answer within {self.start_timeout:g} s")
                continue
            except Exception as exc:
                self._give_up(live, one_line(exc))
                continue
            tools += self._as_tools(live.server, listed, taken)
        return tools

    def _start_loop(self) -> asyncio.AbstractEventLoop:
        if self._loop is None:
            ensure_private_dir(self.log_path.parent)
            self._errlog = self.log_path.open("a", encoding="utf-8")
            self._loop = asyncio.new_event_loop()
            self._thread = threading.Thread(target=self._loop.run_forever, name="mcp-clients", daemon=True)
            self._thread.start()
        return self._loop

    async def _hold(self, live: _Live) -> None:
        """The server's whole life in one task: enter the client, list, wait, exit."""
        from mcp import Client
        from mcp.client.stdio import StdioServerParameters, stdio_client

        assert self._errlog is not None
        self._errlog.write(f"--- {time.strftime('%Y-%m-%d %H:%M:%S')} starting {live.server.name}: "
                           f"{live.server.line}\n")
        self._errlog.flush()
        live.stop = asyncio.Event()
        params = StdioServerParameters(command=live.server.program, args=list(live.server.args))
        try:
            async with Client(stdio_client(params, errlog=self._errlog),
                              read_timeout_seconds=self.start_timeout) as client:
                listed = await client.list_tools()
                live.client = client
                live.ready.set_result([tool.model_dump(by_alias=True, mode="json") for tool in listed.tools])
                await live.stop.wait()
        except BaseException as exc:
            if not live.ready.done():
                live.ready.set_exception(exc if isinstance(exc, Exception) else RuntimeError(one_line(exc)))
            if not isinstance(exc, Exception):
                raise
            log.debug("MCP server %s ended: %s", live.server.name, one_line(exc))
        finally:
            live.client = None

    def _give_up(self, live: _Live, why: str) -> None:
        self.report(f"MCP server {live.server.name} did not start ({why}); its log: {self.log_path}")
        if live.task is not None and self._loop is not None:
            live.task.cancel()

    def _as_tools(self, server: ServerCommand, listed: list[dict[str, Any]], taken: set[str]) -> list[Tool]:
        tools = []
        for data in listed:
            try:
                schema = parameters(data.get("inputSchema") or {})
            except ToolError as exc:
                self.report(f"MCP server {server.name}: tool {data.get('name')!r} left out ({exc})")
                continue
            name = str(data["name"])
            shown = name if name not in taken else f"{server.name}_{name}"
            taken.add(shown)
            self.summaries[shown] = summary(data)
            tools.append(Tool(shown, description(data), schema, self._caller(server.name, name),
                              cancel=self._cancel_calls))
        return tools

    # -- calling ----------------------------------------------------------------------------
    def _caller(self, server: str, tool: str) -> Callable[..., str]:
        def call(**arguments: Any) -> str:
            return self.call(server, tool, arguments)
        return call

    def call(self, server: str, tool: str, arguments: dict[str, Any]) -> str:
        """The tool's result as text; ToolError when it failed or its server is gone."""
        live = self._live.get(server)
        if live is None or live.client is None or self._loop is None:
            raise ToolError(f"MCP server {server} is not running")
        future = asyncio.run_coroutine_threadsafe(live.client.call_tool(tool, arguments), self._loop)
        self._calls.add(future)
        try:
            result = future.result()
        except concurrent.futures.CancelledError:
            raise ToolError(f"the call to {tool} was stopped") from None
        except Exception as exc:
            raise ToolError(f"MCP server {server}: {one_line(exc)}") from None
        finally:
            self._calls.discard(future)
        return result_text(result.model_dump(by_alias=True, mode="json"))

    def _cancel_calls(self) -> None:
        """The tool loop gave up on a call (its time limit): stop waiting for it."""
        for future in list(self._calls):
            future.cancel()

    def owns(self, name: str) -> bool:
        return any(tool.name == name for tool in self._tools or ())

    # -- stopping ---------------------------------------------------------------------------
    def close(self) -> None:
        """Stop every server and the loop, waiting at most `stop_timeout` seconds in all."""
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        deadline = time.monotonic() + self.stop_timeout
        for live in self._live.values():
            if live.stop is not None:
                loop.call_soon_threadsafe(live.stop.set)
        tasks = [live.task for live in self._live.values() if live.task is not None]
        _, pending = concurrent.futures.wait(tasks, timeout=max(0.0, deadline - time.monotonic()))
        for task in pending:
            task.cancel()
        concurrent.futures.wait(pending, timeout=max(0.5, deadline - time.monotonic()))
        loop.call_soon_threadsafe(loop.stop)
        thread.join(max(0.1, deadline - time.monotonic()))
        if thread.is_alive():
            log.warning("MCP servers did not stop within %g s", self.stop_timeout)
        else:
            loop.close()
        if self._errlog is not None:
            with contextlib.suppress(OSError):
                self._errlog.close()
        self._loop = self._thread = None
