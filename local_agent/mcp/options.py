"""The MCP server's own options (which memory, what a client may do, how it is reached) and the
checks that refuse an unsafe start. The HTTP transport takes the server's options and checks
(server/options.py): the same loopback default, API key and Host names as `serve`."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import ConfigError

if TYPE_CHECKING:
    from ..config import Settings
    from ..server.options import ServerOptions


@dataclass(frozen=True)
class McpOptions:
    user: str | None = None  # a server namespace (`<data_dir>/users/NAME`); None: the user's own memory
    read_only: bool = False  # recall, list and an incognito ask; nothing is written
    allow_forget: bool = False  # expose `forget` (off: a client's model cannot erase memory unasked)
    http: ServerOptions | None = None  # streamable HTTP on these; None: stdio

    @property
    def writes(self) -> bool:
        return not self.read_only


def check_mcp_options(options: McpOptions, settings: Settings) -> None:
    """ConfigError (one line) for options the MCP server must not start with."""
    if options.read_only and options.allow_forget:
        raise ConfigError("--read-only and --allow-forget exclude each other: a read-only server forgets nothing")
    if settings.approve:
        raise ConfigError("--approve asks on a terminal, which an MCP server has not (stdin carries the protocol)")
    if options.user is not None:
        from ..server.namespaces import NAME

        if not NAME.fullmatch(options.user):
            raise ConfigError("--user: a namespace name is 1-64 of A-Z, a-z, 0-9, _ and -")
    if options.http is not None:
        from ..server.options import check_options, check_tool_options

        check_options(options.http)
        check_tool_options(options.http, settings.tools_on, settings.approve)


def memory_settings(options: McpOptions, settings: Settings) -> Settings:
    """The settings the server runs on: the namespace's data dir for --user (a data dir of its
    own, as the server's namespaces are), and incognito under --read-only."""
    if options.user is not None:
        from ..server.namespaces import namespace_dir

        settings = replace(settings, data_dir=Path(namespace_dir(settings.data_dir, options.user)))
    return replace(settings, incognito=True) if options.read_only else settings
