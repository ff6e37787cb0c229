"""`local-agent mcp`: the memory as a Model Context Protocol server (local_agent/mcp/), over
stdio or, with --http, streamable HTTP. The SDK and the server are imported when it runs; the
model and the embedder load when a call first needs them."""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..server.options import DEFAULT_MAX_BODY
from .group import cli
from .notices import install_notice_printer
from .options import common_options, echo_err, settings_from

if TYPE_CHECKING:
    from ..config import Settings
    from ..mcp.options import McpOptions
    from ..server.options import ServerOptions

DEFAULT_MCP_PORT = 8766  # serve's is 8765: both can run
HTTP_ONLY = ("host", "port", "api_key", "api_key_file", "allowed_host")


@cli.command()
@click.option("--user", metavar="NAME", help="Use this memory namespace (<data dir>/users/NAME, as serve's "
                                             "X-Local-Agent-User): each client its own memory, or a shared one.")
@click.option("--read-only", is_flag=True, help="Expose recall, list_memories and an ask that writes nothing.")
@click.option("--allow-forget", is_flag=True, help="Expose forget (off: a client's model cannot erase memory).")
@click.option("--http", is_flag=True, help="Serve streamable HTTP at http://HOST:PORT/mcp instead of stdio.")
@click.option("--host", help="With --http: address to listen on [127.0.0.1]. Anything but loopback needs a key.")
@click.option("--port", type=int, help=f"With --http: TCP port; 0 picks a free one [{DEFAULT_MCP_PORT}].")
@click.option("--api-key", help="With --http: require this key (Authorization: Bearer KEY). Visible in `ps`: "
                                "prefer LOCAL_AGENT_API_KEY or --api-key-file.")
@click.option("--api-key-file", type=click.Path(dir_okay=False, path_type=Path),
              help="With --http: read the API key from this file.")
@click.option("--allowed-host", multiple=True, help="With --http: also accept this Host header name (repeatable).")
@common_options
def mcp(user: str | None, read_only: bool, allow_forget: bool, http: bool, host: str | None, port: int | None,
        api_key: str | None, api_key_file: Path | None, allowed_host: tuple[str, ...]) -> None:
    """Serve your memory to MCP clients (Claude Desktop, VS Code, Cursor, ...).

    \b
    Tools: recall, list_memories, ask; remember (not with --read-only);
    forget (only with --allow-forget). Resources: memory://facts, and one
    memory://digests/ID per conversation digest. On stdio (the default) the
    client starts it; stdout carries the protocol only, logs go to stderr.
    --http serves streamable HTTP with serve's guard (Host check, API key,
    loopback unless a key is set). The model and the embedder load on the
    first call that needs them. See docs/mcp.md for client configuration.
    """
    from ..mcp.options import McpOptions, check_mcp_options

    ctx = click.get_current_context()
    given = {name for name in HTTP_ONLY if ctx.params.get(name) not in (None, ())}
    if given and not http:
        raise click.UsageError(f"--{sorted(given)[0].replace('_', '-')} needs --http")
    settings = settings_from(ctx)
    options = McpOptions(user=user, read_only=read_only, allow_forget=allow_forget,
                         http=_http_options(host, port, api_key, api_key_file, allowed_host) if http else None)
    check_mcp_options(options, settings)
    _log_to_stderr(settings.verbose)
    _serve(ctx, options, settings)


def _serve(ctx: click.Context, options: McpOptions, settings: Settings) -> None:
    from ..mcp.options import memory_settings
    from ..mcp.runtime import McpRuntime
    from ..mcp.server import build_server, serve_http, serve_stdio

    # a scripted model when tests give one (as options.backend_factory does), without importing
    # the model runtimes now: they load on the first call that needs them
    factory = ctx.ensure_object(dict).get("backend_factory")
    runtime = McpRuntime(memory_settings(options, settings), settings.data_dir, backend_factory=factory)
    try:
        server = build_server(runtime, options)
        if options.http is None:
            serve_stdio(server)
        else:
            serve_http(server, options.http, announce=click.echo)
    finally:
        runtime.close()


def _http_options(host: str | None, port: int | None, api_key: str | None, api_key_file: Path | None,
                  allowed_host: tuple[str, ...]) -> ServerOptions:
    from ..server.options import ServerOptions, resolve_api_key

    return ServerOptions(host=host or "127.0.0.1", port=DEFAULT_MCP_PORT if port is None else port,
                         api_key=resolve_api_key(api_key, api_key_file), max_body=DEFAULT_MAX_BODY,
                         allowed_hosts=allowed_host, socket=False)


def _log_to_stderr(verbose: bool) -> None:
    """Every log line to stderr, once: local-agent's own through the CLI's notice printer (what
    the runtime loads, with --verbose), the SDK's and uvicorn's through a root handler put in
    place before the SDK would put its own."""
    printer = install_notice_printer()
    level = logging.INFO if verbose else logging.WARNING
    printer.setLevel(level)
    logging.getLogger("local_agent.mcp").setLevel(level)
    handler = logging.StreamHandler(sys.stderr)
    handler.addFilter(lambda record: not record.name.startswith("local_agent"))
    handler.setFormatter(logging.Formatter("local-agent mcp: %(name)s: %(message)s"))
    logging.basicConfig(level=level, handlers=[handler])
    if verbose:
        echo_err("· the model and the embedder load on the first call that needs them")
