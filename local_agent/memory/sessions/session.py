"""Per-session dialogue and rolling summary, one private JSON file per session.

Several processes may hold one session (two chats, concurrent `ask --session`): a save takes
the data dir's session lock for one read-merge-write and appends the turns this process added
to what the file holds now, so no process overwrites another's turns. Turns said in incognito
are never written, and a save after `forget --all` (see epoch.py) writes nothing from before it.
"""

from __future__ import annotations

import builtins
import json
import secrets
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...errors import InputError, NotFoundError, StoreCorruptError
from ...process.files import atomic_write_json, ensure_private_dir, read_own_file
from ...types import Message
from ..store.datadir import SESSIONS_DIR_NAME
from .epoch import ForgetGuard
from .format import SESSION_FORMAT_VERSION, check_session_data, session_title, validate_session_name

__all__ = ["Session", "SessionStore", "Turn"]


@dataclass
class Turn:
    role: str
    content: str
    time: float = field(default_factory=time.time)
    private: bool = False  # said in incognito: kept for the live dialogue, never written
    tool_calls: list[dict[str, Any]] | None = None  # an answer's tool steps (name, arguments, result, error, seconds)

    def message(self) -> Message:
        return Message(self.role, self.content)  # type: ignore[arg-type]

    def to_dict(self) -> dict[str, Any]:
        data = {"role": self.role, "content": self.content, "time": self.time}
        return data if self.tool_calls is None else {**data, "tool_calls": self.tool_calls}


@dataclass
class Session:
    name: str
    created: float = field(default_factory=time.time)
    updated: float = field(default_factory=time.time)
    turns: list[Turn] = field(default_factory=list)
    summary: str = ""
    summarized_upto: int = 0  # turns[:summarized_upto] are folded into `summary`
    title: str = ""  # what the page shows instead of the name ("": none); the name stays the file's
    # What this process knows of the file: turns[:synced] are in it as of `revision`, and the
    # forget epoch it was read in (None: not read from a store, nothing to check).
    synced: int = field(default=0, repr=False)
    revision: str | None = field(default=None, repr=False)
    epoch: str | None = field(default=None, repr=False)

    @property
    def recent(self) -> list[Turn]:
        return self.turns[self.summarized_upto :]

    def exchanges_since_summary(self) -> int:
        return sum(1 for turn in self.recent if turn.role == "user")

    def to_dict(self) -> dict[str, Any]:
        data = {
            "version": SESSION_FORMAT_VERSION, "name": self.name, "created": self.created,
            "updated": self.updated, "turns": [turn.to_dict() for turn in self.turns],
            "summary": self.summary, "summarized_upto": self.summarized_upto, "revision": self.revision,
        }
        return {**data, "title": self.title} if self.title else data

    @classmethod
    def from_dict(cls, data: Any, name: str | None = None) -> Session:
        """A session from its file's data (ValueError if damaged), named `name` when given."""
        fields = check_session_data(data)
        turns = [Turn(**turn) for turn in fields.pop("turns")]
        session = cls(name=name or data.get("name", ""), turns=turns, **fields)
        session.synced = len(turns)
        return session

    def forget_dialogue(self, epoch: str) -> None:
        """Everything was forgotten elsewhere: start afresh in `epoch`."""
        self.turns, self.summary, self.summarized_upto = [], "", 0
        self.synced, self.revision, self.epoch = 0, None, epoch


class SessionStore:
    """Sessions live in `<data_dir>/sessions/<name>.json`, written atomically."""

    def __init__(self, data_dir: Path) -> None:
        self.folder = data_dir / SESSIONS_DIR_NAME
        self.guard = ForgetGuard(data_dir)

    def path(self, name: str) -> Path:
        return self.folder / f"{validate_session_name(name)}.json"

    def exists(self, name: str) -> bool:
        return self.path(name).is_file()

    def load(self, name: str) -> Session:
        epoch = self.guard.current()  # before the file: a forget in between is seen at save
        session = self._read(name)
        if session is None:
            raise NotFoundError(f"no session named {name!r} (see `local-agent sessions`)")
        session.epoch = epoch
        return session

    def load_or_create(self, name: str) -> Session:
        epoch = self.guard.current()
        session = self._read(name) or Session(name=name)
        session.epoch = epoch
        return session

    def new(self) -> Session:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        return Session(name=f"{stamp}-{secrets.token_hex(2)}", epoch=self.guard.current())

    def save(self, session: Session) -> bool:
        """Write the session, merged with what other processes wrote to its file since this one
        read it. Returns True when everything had been forgotten meanwhile (`forget --all`):
        the old dialogue is then dropped, not written, and the session goes on afresh."""
        with self.guard.locked():
            forgotten = self.check_forgotten(session, keep_unsaved=True)
            disk = self._read(session.name)
            if forgotten and disk is None and not session.turns:
                return True
            written = _merged(session, disk)
            ensure_private_dir(self.folder)
            atomic_write_json(self.path(session.name), written.to_dict())
        # From now on this process's dialogue is the file's: others' turns included, incognito
        # turns (never written) dropped.
        _adopt(session, written)
        return forgotten

    def set_title(self, name: str, title: str) -> Session:
        """Give a saved session a title (see `session_title`; "" removes it). Its name, which
        `chat --session` takes and its memories' provenance names, stays. NotFoundError when
        there is no such session."""
        title = session_title(title)
        with self.guard.locked():
            session = self._read(name)
            if session is None:
                raise NotFoundError(f"no session named {name!r}")
            session.title, session.revision = title, secrets.token_hex(8)  # others merge, never overwrite
            atomic_write_json(self.path(name), session.to_dict())
        return session

    def delete(self, name: str) -> None:
        """Delete a session's file. NotFoundError when there is none. An open chat on it that
        saves later writes only what it added since (as after a file deleted by hand)."""
        with self.guard.locked():
            try:
                self.path(name).unlink()
            except FileNotFoundError:
                raise NotFoundError(f"no session named {name!r}") from None

    def check_forgotten(self, session: Session, *, keep_unsaved: bool = False) -> bool:
        """True (and the session's dialogue dropped) if `forget --all` ran since it was read;
        `keep_unsaved` keeps the turns not yet written, as a fresh start."""
        epoch = self.guard.current()
        if session.epoch is None or session.epoch == epoch:
            session.epoch = epoch
            return False
        unsaved = [turn for turn in session.turns[session.synced :] if not turn.private] if keep_unsaved else []
        session.forget_dialogue(epoch)
        session.turns = unsaved
        return True

    def list(self) -> list[Session]:
        return self.scan()[0]

    def scan(self) -> tuple[builtins.list[Session], builtins.list[str]]:
        """Every readable session, most recent first, and one line for each file skipped."""
        if not self.folder.is_dir():
            return [], []
        sessions, skipped = [], []
        for path in sorted(self.folder.glob("*.json")):
            try:
                validate_session_name(path.stem)
                sessions.append(self.load(path.stem))
            except InputError:
                skipped.append(f"skipped {path}: not a session file name")
            except (StoreCorruptError, NotFoundError) as exc:
                skipped.append(f"skipped {path}: {exc}")
        return sorted(sessions, key=lambda session: session.updated, reverse=True), skipped

    def latest(self) -> Session | None:
        sessions = self.list()
        return sessions[0] if sessions else None

    def delete_all(self) -> None:
        """Delete every session file (found by name; files local-agent did not make stay), and
        the folder when that leaves it empty. DataDirError for a link (nothing is deleted then);
        StoreError naming each session file that could not be deleted."""
        from ..store.datadir import delete_session_files

        delete_session_files(self.folder)

    def _read(self, name: str) -> Session | None:
        """The session in its file (named after the file), None when there is none."""
        path = self.path(name)
        try:
            data = json.loads(read_own_file(path).decode("utf-8"))
            return Session.from_dict(data, name=name)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise StoreCorruptError(f"session file {path} cannot be read: {exc.strerror or exc}") from None
        except (ValueError, RecursionError) as exc:
            raise StoreCorruptError(f"session file {path} is damaged: {exc}") from None


def _base_turns(session: Session, disk: Session | None, nobody_else: bool) -> list[Turn]:
    """The turns a save builds on: ours as read or written when nobody else wrote since (never
    an incognito turn), else the file's (a file deleted by hand keeps only what is new)."""
    if nobody_else:
        return session.turns[: session.synced]
    return disk.turns if disk else []


def _merged(session: Session, disk: Session | None) -> Session:
    """What to write: the file's turns (ours as read when nobody else wrote since) followed by
    the turns this process added, and the summary that folds the most of them."""
    mine = [turn for turn in session.turns[session.synced :] if not turn.private]
    nobody_else = (disk.revision if disk else None) == session.revision
    base = _base_turns(session, disk, nobody_else)
    written = Session(name=session.name, created=disk.created if disk else session.created,
                      turns=base + mine, revision=secrets.token_hex(8), title=disk.title if disk else session.title)

    def position(index: int) -> int:  # where turns[index] of this process lands in the file
        if index <= session.synced:
            return min(index, len(base))
        return len(base) + sum(1 for turn in session.turns[session.synced : index] if not turn.private)

    ours = position(session.summarized_upto)
    if nobody_else or (disk is not None and ours >= disk.summarized_upto):
        written.summary, written.summarized_upto = session.summary, ours
    elif disk is not None:
        written.summary, written.summarized_upto = disk.summary, disk.summarized_upto
    # else the file was deleted by hand: the summary of its turns goes with them
    return written


def _adopt(session: Session, written: Session) -> None:
    session.turns, session.summary, session.title = written.turns, written.summary, written.title
    session.summarized_upto, session.updated = written.summarized_upto, written.updated
    session.synced, session.revision = len(written.turns), written.revision
