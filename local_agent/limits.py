"""The most text one message may hold, in one place for every front end.

A turn reads its message several times: recall searches and embeds it, the prompt is fitted
around it, the answer is checked against it, the memory work stores it as a turn memory and
the distiller reads its statements. Each of those is at least linear in the message, some
more, and the server answers one request at a time: a message over MAX_MESSAGE_CHARS is
refused before any of it (the server's 400, the CLI's one-line error, a batch line's error
record, MCP's error), so a turn is bounded in time whatever a client sends. docs/reliability.md
has the measurements this number rests on.

A message under the limit may still be longer than the model's context: then the prompt keeps
its start with a visible notice (prompt.py), or the server refuses it with a 400 naming the
token counts (server/engine.py). It is never cut silently.
"""

from __future__ import annotations

from .errors import InputError

MAX_MESSAGE_CHARS = 32_000  # characters of one message (about 8,000 tokens of English)


def message_problem(text: str) -> str:
    """What keeps `text` from being one message, as "N characters, over the ..." ('' if
    nothing); never the text itself."""
    if len(text) > MAX_MESSAGE_CHARS:
        return f"{len(text)} characters, over the {MAX_MESSAGE_CHARS} a message may have"
    return ""


def check_message(text: str, what: str = "the message") -> str:
    """`text`, or InputError ("WHAT has N characters, over ...") when it is over MAX_MESSAGE_CHARS."""
    problem = message_problem(text)
    if problem:
        raise InputError(f"{what} has {problem}")
    return text
