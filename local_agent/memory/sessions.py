"""Per-session dialogue and rolling summary, one private JSON file per session."""

from __future__ import annotations

import json
import re
import secrets
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InputError, NotFoundError, StoreCorruptError
from ..files import atomic_write_json, ensure_private_dir
from ..types import Message

SESSION_FORMAT_VERSION = 1
_NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


@dataclass
class Turn:
    role: str
    content: str
    time: float = field(default_factory=time.time)

    def message(self) -> Message:
        return Message(self.role, self.content)  # type: ignore[arg-type]


@dataclass
class Session:
    name: str
    created: float = field(default_factory=time.time)
    updated: float = field(default_factory=time.time)
    turns: list[Turn] = field(default_factory=list)
    summary: str = ""
    summarized_upto: int = 0  # turns[:summarized_upto] are folded into `summary`

    @property
    def recent(self) -> list[Turn]:
        return self.turns[self.summarized_upto :]

    def exchanges_since_summary(self) -> int:
        return sum(1 for turn in self.recent if turn.role == "user")

    def to_dict(self) -> dict[str, Any]:
        return {"version": SESSION_FORMAT_VERSION, **asdict(self)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Session":
        turns = [Turn(**turn) for turn in data.get("turns", [])]
        return cls(
            name=data["name"],
            created=data.get("created", 0.0),
            updated=data.get("updated", 0.0),
            turns=turns,
            summary=data.get("summary", ""),
            summarized_upto=int(data.get("summarized_upto", 0)),
        )


def validate_session_name(name: str) -> str:
    if not _NAME_PATTERN.match(name):
        raise InputError(
            f"invalid session name {name!r}: use 1-64 letters, digits, '.', '_' or '-'"
        )
    return name


class SessionStore:
    """Sessions live in `<data_dir>/sessions/<name>.json`, written atomically."""

    def __init__(self, data_dir: Path) -> None:
        self.folder = data_dir / "sessions"

    def path(self, name: str) -> Path:
        return self.folder / f"{validate_session_name(name)}.json"

    def exists(self, name: str) -> bool:
        return self.path(name).is_file()

    def load(self, name: str) -> Session:
        path = self.path(name)
        if not path.is_file():
            raise NotFoundError(f"no session named {name!r} (see `local-agent sessions`)")
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if data.get("version") != SESSION_FORMAT_VERSION:
                raise ValueError(f"unknown format version {data.get('version')!r}")
            return Session.from_dict(data)
        except (ValueError, KeyError, TypeError) as exc:
            raise StoreCorruptError(f"session file {path} is damaged: {exc}") from None

    def load_or_create(self, name: str) -> Session:
        return self.load(name) if self.exists(name) else Session(name=validate_session_name(name))

    def new(self) -> Session:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        return Session(name=f"{stamp}-{secrets.token_hex(2)}")

    def save(self, session: Session) -> None:
        session.updated = time.time()
        ensure_private_dir(self.folder)
        atomic_write_json(self.path(session.name), session.to_dict())

    def list(self) -> list[Session]:
        if not self.folder.is_dir():
            return []
        sessions = [self.load(path.stem) for path in self.folder.glob("*.json")]
        return sorted(sessions, key=lambda session: session.updated, reverse=True)

    def latest(self) -> Session | None:
        sessions = self.list()
        return sessions[0] if sessions else None

    def delete_all(self) -> None:
        """Delete every session file (found by name; files local-agent did not make stay), and
        the folder when that leaves it empty. DataDirError for a link (nothing is deleted then);
        StoreError naming each session file that could not be deleted."""
        from .datadir import delete_session_files

        delete_session_files(self.folder)
