"""`--approve`: each tool call is put to the user on the terminal (/dev/tty, so that it works
while stdin and stdout are redirected, as `llm --tools-approve` does). With no terminal to ask
on, the call is denied: the agent tells the model, and the user gets a notice."""

from __future__ import annotations

import json
import os
from typing import Any

from ..errors import ApprovalUnavailable
from .display import printable

TTY_PATH = "/dev/tty"
MAX_SHOWN_CHARS = 500
MAX_REPLY_BYTES = 256


def describe_call(name: str, arguments: dict[str, Any]) -> str:
    shown = json.dumps(arguments, ensure_ascii=False)
    if len(shown) > MAX_SHOWN_CHARS:
        shown = shown[: MAX_SHOWN_CHARS - 3] + "..."
    return printable(f"{name}({shown})")


class TtyApprover:
    """Asks "Run NAME(ARGUMENTS)? [y/N]" on the terminal; only y or yes allows the call."""

    def __call__(self, name: str, arguments: dict[str, Any]) -> bool:
        try:
            fd = os.open(TTY_PATH, os.O_RDWR | getattr(os, "O_NOCTTY", 0))
        except OSError:
            raise ApprovalUnavailable("there is no terminal to ask on") from None
        try:
            os.write(fd, f"Run {describe_call(name, arguments)}? [y/N] ".encode())
            reply = os.read(fd, MAX_REPLY_BYTES).decode("utf-8", errors="replace")
        finally:
            os.close(fd)
        return reply.strip().lower() in {"y", "yes"}
