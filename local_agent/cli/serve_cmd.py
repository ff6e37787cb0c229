"""`local-agent serve`: the OpenAI-compatible server (local_agent/server/), in the foreground."""

from __future__ import annotations

from pathlib import Path

import click

from ..server.options import (
    DEFAULT_MAX_BODY,
    DEFAULT_MAX_IMPORT,
    DEFAULT_MAX_QUEUE,
    DEFAULT_PARALLEL,
    DEFAULT_PORT,
    MAX_PARALLEL,
)
from .group import cli
from .options import backend_factory, common_options, echo_err, settings_from


@cli.command()
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on. Anything but loopback needs an API key.")
@click.option("--port", type=int, default=DEFAULT_PORT, show_default=True, help="TCP port; 0 picks a free one.")
@click.option("--api-key", help="Require this key (Authorization: Bearer KEY). Visible in `ps`: prefer "
                                "LOCAL_AGENT_API_KEY or --api-key-file.")
@click.option("--api-key-file", type=click.Path(dir_okay=False, path_type=Path),
              help="Read the API key from this file.")
@click.option("--max-queue", type=int, default=DEFAULT_MAX_QUEUE, show_default=True,
              help="Requests that may wait while others are served; more get 429.")
@click.option("--parallel", type=click.IntRange(1, MAX_PARALLEL), default=DEFAULT_PARALLEL, show_default=True,
              help="Requests answered at once, decoded together by one model (llama.cpp; other runtimes "
                   "answer one at a time). A memory namespace's memory work still runs in order.")
@click.option("--max-body", type=int, default=DEFAULT_MAX_BODY, show_default=True,
              help="Largest request body in bytes; larger get 413.")
@click.option("--max-import", type=int, default=DEFAULT_MAX_IMPORT, show_default=True,
              help="Largest file of past chats the page may upload, in bytes.")
@click.option("--cors-origin", multiple=True,
              help="Allow browser pages from this origin (repeatable). No CORS by default.")
@click.option("--allowed-host", multiple=True,
              help="Also accept this Host header name (repeatable), e.g. the machine's name on the LAN.")
@click.option("--system", help="The directive for clients that send no system message.")
@click.option("--no-memory", is_flag=True, help="Neither recall nor remember for any request.")
@click.option("--incognito", is_flag=True, default=None, help="Recall, but write no memory.")
@click.option("--no-socket", is_flag=True, help="Do not publish the Unix socket that `ask` uses.")
@common_options
def serve(host: str, port: int, api_key: str | None, api_key_file: Path | None, max_queue: int, parallel: int,
          max_body: int, max_import: int, cors_origin: tuple[str, ...], allowed_host: tuple[str, ...],
          system: str | None, no_memory: bool, incognito: bool | None, no_socket: bool) -> None:
    """Serve the assistant over HTTP, OpenAI-compatible, with your memory, and a page to
    chat and see your memory in: open the printed address in a browser.

    \b
    Endpoints: POST /v1/chat/completions (streamed or not), GET /v1/models,
    POST /v1/embeddings; memory: GET/POST /v1/memories, POST /v1/memories/search,
    DELETE /v1/memories/ID. The header X-Local-Agent-User picks a separate memory
    namespace; X-Local-Agent-Memory: off reads and writes none. `local-agent ask`
    uses a running server with the same model and data dir (--no-server: never).
    Prints `listening on http://HOST:PORT`; Ctrl-C or SIGTERM finishes what is in
    flight, then exits. A request's own `tools` and `response_format` are decoded
    as JSON of their schemas. The built-in tools (--tools, --db, --notes) run only
    with an API key. See docs/server.md.
    """
    from ..server.options import ServerOptions, resolve_api_key
    from ..server.run import serve as run_server

    ctx = click.get_current_context()
    settings = settings_from(ctx, incognito=incognito)
    options = ServerOptions(
        host=host, port=port, api_key=resolve_api_key(api_key, api_key_file), max_queue=max_queue,
        parallel=parallel, max_body=max_body, max_import=max_import, cors_origins=cors_origin,
        allowed_hosts=allowed_host, socket=not no_socket, memory=not no_memory, system=system,
        verbose=settings.verbose,
    )

    def status(message: str) -> None:
        if settings.verbose or message.startswith(("loading", "ready", "another", "not publishing")):
            echo_err(f"· {message}")

    run_server(settings, options, announce=click.echo, status=status, backend_factory=backend_factory(ctx))
