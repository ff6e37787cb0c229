"""`local-agent chat` (interactive, streamed) and `local-agent ask` (one answer for scripts)."""

from __future__ import annotations

import sys
from typing import Any

import click

from ..agent import Agent, TurnResult
from ..app import Runtime, build_runtime
from ..config import Settings
from ..errors import InputError
from . import cli, print_json
from .options import common_options, echo_err, settings_from
from .repl import ChatRepl

MAX_MESSAGE_BYTES = 1_000_000


def session_options(command):
    command = click.option("--session", "-s", help="Resume (or create) the session with this name.")(command)
    command = click.option("--system", help="Replace the default system directive.")(command)
    command = click.option("--incognito", is_flag=True, default=None, help="Read memory, write nothing.")(command)
    command = click.option("--no-memory", is_flag=True, help="Neither recall nor remember.")(command)
    return command


def _status_printer(settings: Settings, show_loading: bool):
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
    /context, /incognito, /clear, /exit). Ctrl-C stops an answer; Ctrl-D exits.
    End a line with \\ to continue it, or wrap a pasted block in triple quotes.
    By default the most recent session is resumed; --new-session starts afresh.
    """
    settings = settings_from(click.get_current_context(), incognito=incognito)
    session = session or (None if new_session else _latest_session(settings))
    runtime = build_runtime(
        settings, session=session, system=system,
        memory=not no_memory, status=_status_printer(settings, show_loading=True),
    )
    try:
        ChatRepl(runtime, settings).run()
    finally:
        runtime.close()


def _latest_session(settings: Settings) -> str | None:
    from ..memory.sessions import SessionStore

    found, skipped = SessionStore(settings.data_dir).scan()
    for line in skipped:
        echo_err(f"warning: {line}")
    return found[0].name if found else None


@cli.command()
@click.argument("question", nargs=-1)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (answer, backend, timings, tokens, memories).")
@session_options
@common_options
def ask(question: tuple[str, ...], as_json: bool, session: str | None,
        system: str | None, incognito: bool | None, no_memory: bool) -> None:
    """Answer one QUESTION (or the text on stdin) and exit.

    Memory works as in chat: what you say can be remembered, and the answer uses what
    was remembered before. Each ask is a new session unless --session names one.
    """
    settings = settings_from(click.get_current_context(), incognito=incognito)
    text = " ".join(question) if question else read_stdin_message()
    if not text.strip():
        raise InputError("nothing to ask: give a question as an argument or on stdin")
    runtime = build_runtime(settings, session=session,
                            system=system, memory=not no_memory, status=_status_printer(settings, show_loading=False))
    try:
        on_token = None if as_json else _stream_to_stdout
        result = runtime.agent.respond(text, on_token=on_token)
        runtime.agent.wait()
        if as_json:
            print_json(turn_json(result, runtime))
        else:
            click.echo()
        if result.background_error:
            echo_err(f"warning: memory was not updated: {result.background_error}")
    finally:
        runtime.close()


def read_stdin_message() -> str:
    if sys.stdin is None or sys.stdin.isatty():
        return ""
    data = sys.stdin.buffer.read(MAX_MESSAGE_BYTES + 1)
    if len(data) > MAX_MESSAGE_BYTES:
        raise InputError(f"the message on stdin is over {MAX_MESSAGE_BYTES // 1_000_000} MB")
    return data.decode("utf-8", errors="replace")


def _stream_to_stdout(chunk: str) -> None:
    sys.stdout.write(chunk)
    sys.stdout.flush()


def turn_json(result: TurnResult, runtime: Runtime) -> dict[str, Any]:
    """The JSON shape shared by `ask --json` and `batch` records."""
    return {
        "answer": result.answer,
        "session": result.session,
        "backend": runtime.choice.backend,
        "device": runtime.choice.device,
        "model": runtime.backend.model_name,
        "interrupted": result.interrupted,
        "memories_saved": [
            {"id": o.record.id, "text": o.record.text, "action": o.action} for o in result.saved
        ],
        "memories_recalled": [
            {"id": h.record.id, "kind": h.record.kind, "text": h.record.text, "score": round(h.score, 4)}
            for h in result.recalled
        ],
        "timings": {k: round(v, 4) for k, v in result.timings.items()},
        "tokens": result.tokens,
        "notices": result.notices,
    }


def saved_summary(agent: Agent, result: TurnResult) -> str:
    if result.background_error:
        return f"memory not updated: {result.background_error}"
    if not result.saved:
        return "nothing new to remember"
    parts = [f"{o.action} [{o.record.id[:8]}] {o.record.text}" for o in result.saved]
    return "remembered: " + "; ".join(parts)
