"""`local-agent chat` (interactive, streamed) and `local-agent ask` (one answer for scripts).

The model and memory (app, repl) are imported where they are used: `ask` answered by a warm
server imports only the standard-library client (server/client.py).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

import click

from ..config import Settings
from ..errors import InputError
from ..limits import check_message
from .group import cli, print_json
from .options import backend_factory, common_options, echo_err, settings_from
from .stdin_text import read_stdin_message

if TYPE_CHECKING:
    from ..tools.loop import ToolCall

Command = TypeVar("Command", bound=Callable[..., object])


def session_options(command: Command) -> Command:
    command = click.option("--session", "-s", help="Resume (or create) the session with this name.")(command)
    command = click.option("--system", help="Replace the default system directive.")(command)
    command = click.option("--incognito", is_flag=True, default=None, help="Read memory, write nothing.")(command)
    command = click.option("--no-memory", is_flag=True, help="Neither recall nor remember.")(command)
    return command


def _status_printer(settings: Settings, show_loading: bool) -> Callable[[str], None]:
    """Progress lines on stderr: the loading line in chat, everything with --verbose."""
    def status(message: str) -> None:
        if settings.verbose or (show_loading and message.startswith("loading")):
            echo_err(f"· {message}")
    return status


@cli.command()
@session_options
@click.option("--new-session", is_flag=True, help="Start a new session instead of resuming the latest.")
@common_options
def chat(session: str | None, new_session: bool, system: str | None, incognito: bool | None, no_memory: bool) -> None:
    """Talk with the assistant; answers stream as they are written.

    \b
    Type /help inside the chat for commands (/memories, /remember, /forget, /summary,
    /context, /trace, /approve, /incognito, /clear, /exit). Ctrl-C stops an answer; Ctrl-D exits.
    With --tools (or --db, --notes) each tool call shows as one line.
    End a line with \\ to continue it, or wrap a pasted block in triple quotes.
    By default the most recent session is resumed; --new-session starts afresh.
    """
    from ..app import build_runtime
    from .approval import TtyApprover
    from .repl import ChatRepl

    check_message(system or "", "--system")  # limits.py: the directive is read as a message is

    ctx = click.get_current_context()
    settings = settings_from(ctx, incognito=incognito)
    session = session or (None if new_session else _latest_session(settings))
    runtime = build_runtime(
        settings, session=session, system=system, memory=not no_memory,
        status=_status_printer(settings, show_loading=True), backend_factory=backend_factory(ctx),
        approver=TtyApprover(),
    )
    runtime.agent.digests = True  # a chat session left after a few exchanges is remembered in short
    with runtime:
        ChatRepl(runtime, settings).run()


def _latest_session(settings: Settings) -> str | None:
    from ..memory.sessions import SessionStore

    found, skipped = SessionStore(settings.data_dir).scan()
    for line in skipped:
        echo_err(f"warning: {line}")
    return found[0].name if found else None


@cli.command()
@click.argument("question", nargs=-1)
@click.option("--json", "as_json", is_flag=True,
              help="Print one JSON object (answer, backend, timings, tokens, memories, tool calls).")
@click.option("--no-server", is_flag=True, help="Answer in-process even when `local-agent serve` runs.")
@session_options
@common_options
def ask(question: tuple[str, ...], as_json: bool, no_server: bool, session: str | None,
        system: str | None, incognito: bool | None, no_memory: bool) -> None:
    """Answer one QUESTION (or the text on stdin) and exit.

    Memory works as in chat: what you say can be remembered, and the answer uses what
    was remembered before. Each ask is a new session unless --session names one.
    A running `local-agent serve` with the same model and data dir answers it warm.
    With tools, a question the model asks back is the answer (asked_user in --json).
    """
    ctx = click.get_current_context()
    settings = settings_from(ctx, incognito=incognito)
    text = " ".join(question) if question else read_stdin_message()
    if not text.strip():
        raise InputError("nothing to ask: give a question as an argument or on stdin")
    check_message(text)  # limits.py: refused before anything loads
    check_message(system or "", "--system")
    if not no_server and not (settings.tools_on and settings.mcp_servers):  # a warm server (server/client.py;
        # it runs no MCP servers), else in-process below
        from ..server.client import warm_ask

        warm = warm_ask(settings, text, session=session, system=system, memory=not no_memory,
                        on_token=None if as_json else _stream_to_stdout, wait_for_memory=as_json)
        if warm is not None:
            if as_json:
                print_json(warm.record)
            else:
                click.echo()
                for notice in warm.record.get("notices", []):
                    echo_err(f"· {notice}")
            if warm.memory_error:
                echo_err(f"warning: memory was not updated: {warm.memory_error}")
            return
    _ask_in_process(ctx, settings, text, session=session, system=system, memory=not no_memory, as_json=as_json)


def _call_printer(shown: Callable[[str], bool] = lambda name: True) -> Callable[[ToolCall], None]:
    """Each tool call that is `shown` on stderr, one line (the tools' modules load only when tools are on)."""
    from .tool_lines import call_line

    def show(call: ToolCall) -> None:
        if shown(call.name):
            echo_err(call_line(call))
    return show


def _ask_in_process(ctx: click.Context, settings: Settings, text: str, *, session: str | None,
                    system: str | None, memory: bool, as_json: bool) -> None:
    from ..app import build_runtime
    from ..turn.record import turn_json
    from .approval import TtyApprover

    runtime = build_runtime(settings, session=session, system=system, memory=memory,
                            status=_status_printer(settings, show_loading=False), backend_factory=backend_factory(ctx),
                            approver=TtyApprover())
    show_call = None
    if settings.tools_on and not as_json and (settings.verbose or runtime.mcp is not None):
        # every call with --verbose; an MCP server's calls always (another program ran)
        show_call = _call_printer() if settings.verbose or runtime.mcp is None else _call_printer(runtime.mcp.owns)
    with runtime:
        result = runtime.agent.respond(text, on_token=None if as_json else _stream_to_stdout, on_call=show_call)
        if as_json:
            print_json(turn_json(result, runtime.choice, runtime.backend.model_name))
        else:
            click.echo()
            # a call that was not allowed; the message cut to fit the context (never silently)
            for notice in result.notices if result.tool_calls else result.prompt.notices if result.prompt else ():
                echo_err(f"· {notice}")
        error = result.memory_work().error
        if error:
            echo_err(f"warning: memory was not updated: {error}")
    if result.interrupted:  # Ctrl-C: what was said is kept, and a script's loop stops too
        echo_err("[answer stopped]")
        sys.exit(130)  # (click's ctx.exit would only hand the code back to main())


def _stream_to_stdout(chunk: str) -> None:
    sys.stdout.write(chunk)
    sys.stdout.flush()
