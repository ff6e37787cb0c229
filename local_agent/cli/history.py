"""The chat's line-editing history (readline), kept in `<data_dir>/chat_history`.

Read when the chat starts and written when it exits, but never with a line that must not reach
a file: lines typed in incognito leave the history as soon as they are read, and after a
`forget --all` by any process (see memory/sessions/epoch.py) the history is not written back at all.
"""

from __future__ import annotations

import atexit
import os
from pathlib import Path
from types import ModuleType

import click

from ..errors import LocalAgentError
from ..memory.sessions.epoch import ForgetGuard
from ..process.files import PRIVATE_FILE, ensure_private_dir

HISTORY_LENGTH = 1000


def _readline() -> ModuleType | None:
    try:
        import readline
    except ImportError:  # not available on every platform: plain input() still works
        return None
    return readline


class ChatHistory:
    def __init__(self, path: Path | None) -> None:
        """`path` None: line editing without a history file (incognito chats)."""
        self.path = path
        self.readline = _readline()
        self.guard = ForgetGuard(path.parent) if path else None
        self.epoch: str | None = None

    def start(self) -> None:
        """Turn on line editing; load the history file and save it at exit."""
        if self.readline is None:
            return
        self.readline.parse_and_bind("tab: complete")
        if self.path is None or self.guard is None:
            return
        self.epoch = self.guard.current()  # before the file, so a forget in between is seen
        ensure_private_dir(self.path.parent)
        if self.path.is_file():
            self.readline.read_history_file(self.path)
        self.readline.set_history_length(HISTORY_LENGTH)
        atexit.register(self.save)

    def mark(self) -> int:
        return self.readline.get_current_history_length() if self.readline else 0

    def drop_since(self, mark: int) -> None:
        """Take the lines read since `mark` out of the history: they were said in incognito."""
        if self.readline is None:
            return
        for position in range(self.readline.get_current_history_length() - 1, mark - 1, -1):
            self.readline.remove_history_item(position)

    def save(self) -> None:
        if self.readline is None or self.path is None or self.guard is None:
            return
        try:
            with self.guard.locked():
                if self.guard.current() != self.epoch:
                    return  # everything was forgotten meanwhile: what we hold must not come back
                self.readline.write_history_file(self.path)
                os.chmod(self.path, PRIVATE_FILE)
        except (LocalAgentError, OSError) as exc:
            click.echo(f"warning: the chat history was not saved: {exc}", err=True)
