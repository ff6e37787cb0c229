"""Messages read from stdin when it is not a terminal (`ask` and a piped `chat`), bounded: a
stream with no end, or no line end (`< /dev/zero`), is an error and not a slow exhaustion of
memory."""

from __future__ import annotations

import sys

from ..errors import InputError

MAX_MESSAGE_BYTES = 1_000_000


def read_stdin(max_bytes: int, too_long: str) -> bytes:
    """All of stdin, up to `max_bytes`; InputError(`too_long`) past them."""
    data = sys.stdin.buffer.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise InputError(too_long)
    return data


def read_stdin_message() -> str:
    """All of stdin as one message ("" when stdin is a terminal or closed)."""
    if sys.stdin is None or sys.stdin.isatty():
        return ""
    data = read_stdin(MAX_MESSAGE_BYTES, f"the message on stdin is over {MAX_MESSAGE_BYTES // 1_000_000} MB")
    return data.decode("utf-8", errors="replace")


def read_piped_line(prompt: str) -> str:
    """`input(prompt)` for a stdin that is no terminal, with lines up to MAX_MESSAGE_BYTES."""
    sys.stdout.write(prompt)
    sys.stdout.flush()
    line = sys.stdin.readline(MAX_MESSAGE_BYTES + 1)
    if not line:
        raise EOFError
    if len(line) > MAX_MESSAGE_BYTES:
        raise InputError(f"a line on stdin is over {MAX_MESSAGE_BYTES // 1_000_000} MB")
    return line.removesuffix("\n")


def check_message_size(size: int) -> None:
    """InputError once one message (lines being pasted, `size` characters so far) passes
    MAX_MESSAGE_BYTES."""
    if size > MAX_MESSAGE_BYTES:
        raise InputError(f"the message is over {MAX_MESSAGE_BYTES // 1_000_000} MB")
