"""The resources a client can show or attach: the facts remembered about the user as one
readable list (`memory://facts`), and each conversation digest as a resource of its own
(`memory://digests/{id}`). Their texts are quoted data under a header that says so."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError
from mcp_types import Resource

from ..errors import LocalAgentError, NotFoundError
from . import render
from .runtime import McpRuntime

if TYPE_CHECKING:
    from ..types import MemoryRecord

log = logging.getLogger(__name__)
T = TypeVar("T")
FACTS_URI = "memory://facts"
DIGEST_URI = "memory://digests/{ident}"
TEXT = "text/plain"


def facts_text(records: list[MemoryRecord]) -> str:
    if not records:
        return "No facts are remembered about the user yet."
    lines = [f"- [{record.id}] {record.provenance.date or ''}\n{render.quoted(record.text)}" for record in records]
    return f"Facts remembered about the user, newest first ({render.DATA}):\n" + "\n".join(lines)


def digest_text(record: MemoryRecord) -> str:
    return f"Summary of the conversation {digest_days(record)} ({render.DATA}):\n{render.quoted(record.text)}"


def digest_days(record: MemoryRecord) -> str:
    first, until = record.provenance.date or "", record.provenance.until
    return f"{first} to {until}" if until and until != first else f"of {first}" if first else ""


def digest_resource(record: MemoryRecord) -> Resource:
    return Resource(uri=DIGEST_URI.format(ident=record.id), name=f"digest-{record.id}",
                    title=f"Conversation {digest_days(record)}".strip(),
                    description="The summary of one past conversation with the user's local assistant.",
                    mime_type=TEXT)


class MemoryServer(MCPServer):
    """An MCPServer whose resource list also names each digest the memory holds (read on
    each listing, so a new digest shows up without a restart)."""

    def __init__(self, runtime: McpRuntime, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.runtime = runtime

    async def run_checked_stdio(self) -> None:
        """`run_stdio_async`, with each line checked before the SDK reads it (transports.py)."""
        from .malformed import required_arguments
        from .transports import serve_checked_stdio

        lowlevel = self._lowlevel_server  # what run_stdio_async serves; the SDK has no public name for it
        required = required_arguments(await self.list_tools())
        options = lowlevel.create_initialization_options()
        await serve_checked_stdio(lambda read, write: lowlevel.run(read, write, options), required)

    async def list_resources(self) -> list[Resource]:
        listed = await super().list_resources()
        try:
            digests = await self.runtime.run(lambda: self.runtime.memory().newest("digest"))
        except LocalAgentError as exc:  # the facts resource, when read, says what is wrong
            log.warning("the digests are not listed: %s", exc)
            return listed
        return listed + [digest_resource(record) for record in digests]


def register_resources(server: MCPServer, runtime: McpRuntime) -> None:
    """The facts list and the digest template on `server`."""

    async def facts() -> str:
        return facts_text(await _read(runtime, lambda: runtime.memory().newest("fact")))

    async def digest(ident: str) -> str:
        record = (await _read(runtime, lambda: runtime.memory().show(ident))).record
        if record.kind != "digest":
            raise ResourceError(f"{ident} is not a digest")
        return digest_text(record)

    server.resource(FACTS_URI, name="facts", title="What I remember about you",
                    description="The facts the user's private memory holds about them, newest first.",
                    mime_type=TEXT)(facts)
    server.resource(DIGEST_URI, name="digest", title="A past conversation, in short",
                    description="The summary of one past conversation (the resource list names each one).",
                    mime_type=TEXT)(digest)


async def _read(runtime: McpRuntime, job: Callable[[], T]) -> T:
    try:
        return await runtime.run(job)
    except NotFoundError as exc:
        raise ResourceNotFoundError(str(exc)) from exc
    except LocalAgentError as exc:
        raise ResourceError(" ".join(str(exc).split())) from exc
