"""A memory namespace carried to another machine and back (`batch --ray`).

The driver sends a `NamespaceCopy`: an export of the namespace's store and the session files
its lines continue. The actor answers the lines on a scratch namespace seeded from it and
returns, for each line, a `LineResult`: the record, an export of the memories that line added
or changed, and its session file as it then was. The driver commits line results in input
order through the memory service's import (with refresh: a memory touched or replaced on the
actor takes that state), so each namespace ends as a run in order leaves it, and a run cut
short between lines leaves the files a local run would have left at that line.
"""

from __future__ import annotations

import datetime as dt
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..memory.service import MemoryService
from ..memory.sessions import SessionStore
from ..memory.store.datadir import claim_data_dir, namespace_data_dir
from ..memory.store.transfer import export_bytes
from ..process.files import atomic_write_bytes, ensure_private_dir
from ..types import MemoryRecord

if TYPE_CHECKING:
    from ..memory.index.embedder import TextEmbedder
    from ..memory.store import MemoryStore


@dataclass(frozen=True)
class NamespaceCopy:
    """What an actor starts a namespace's lines from."""

    store: bytes | None  # an export of the namespace's store; None with memory off
    sessions: dict[str, bytes]  # session name -> its file, for the sessions the lines continue


@dataclass(frozen=True)
class LineResult:
    line: int
    record: dict[str, Any]
    memories: tuple[bytes, ...] = ()  # exports of what the line added or changed in the store, in order
    session: str | None = None  # the session whose file follows
    session_file: bytes | None = None


def read_sessions(folder: Path, names: set[str]) -> dict[str, bytes]:
    """The files of the sessions `names` that exist in the data dir `folder`."""
    sessions = SessionStore(folder)
    return {name: sessions.path(name).read_bytes() for name in sorted(names) if sessions.exists(name)}


def write_session(folder: Path, name: str, data: bytes) -> None:
    """Put a session file in place, atomically and under the sessions lock."""
    sessions = SessionStore(folder)
    with sessions.guard.locked():
        ensure_private_dir(sessions.folder)
        atomic_write_bytes(sessions.path(name), data)


def export_store(service: MemoryService) -> bytes:
    """The namespace's store as an export file's bytes (written privately, read, deleted)."""
    with tempfile.TemporaryDirectory(prefix="la-copy-") as scratch:
        path = Path(scratch) / "memory.json"
        service.export(path)
        return path.read_bytes()


def import_bytes(service: MemoryService, data: bytes) -> int:
    """Import an export's bytes through the service, refreshing records already stored."""
    with tempfile.TemporaryDirectory(prefix="la-copy-") as scratch:
        path = Path(scratch) / "memory.json"
        atomic_write_bytes(path, data)
        return service.import_file(path, refresh=True).added


class StoreChanges:
    """What a store gained or changed since the last call of `take`, as export bytes."""

    def __init__(self, store: MemoryStore | None) -> None:
        self._store = store
        self._seen = self._state()

    def _state(self) -> dict[str, MemoryRecord]:
        if self._store is None:
            return {}
        return {record.id: record for record in self._store.records(include_inactive=True)}

    def take(self) -> bytes | None:
        if self._store is None:
            return None
        now = self._state()
        changed = [record for ident, record in now.items() if self._seen.get(ident) != record]
        self._seen = now
        return export_bytes(changed, self._store.embedding_id) if changed else None


class Namespaces:
    """The driver's namespaces under `data_dir`: their copies out, and line results back in.
    `open_store(folder)` opens a namespace's store (None with memory off)."""

    def __init__(self, data_dir: Path, open_store: Callable[[Path], MemoryStore] | None,
                 clock: Callable[[], dt.datetime]) -> None:
        self._data_dir, self._open_store, self._clock = data_dir, open_store, clock
        self._services: dict[str | None, MemoryService] = {}
        self._stores: list[MemoryStore] = []

    def folder(self, user: str | None) -> Path:
        claim_data_dir(self._data_dir)  # the data dir first: a users/ folder in an unclaimed one is refused
        return claim_data_dir(namespace_data_dir(self._data_dir, user))

    def service(self, user: str | None) -> MemoryService | None:
        if self._open_store is None:
            return None
        if user not in self._services:
            folder = self.folder(user)
            store = self._open_store(folder)
            self._stores.append(store)
            self._services[user] = MemoryService(store, folder, clock=self._clock)
        return self._services[user]

    def copy(self, user: str | None, sessions: set[str]) -> NamespaceCopy:
        service = self.service(user)
        return NamespaceCopy(export_store(service) if service else None, read_sessions(self.folder(user), sessions))

    def commit(self, user: str | None, result: LineResult) -> None:
        """A line's memories and session file, in the namespace (before its record is written)."""
        service = self.service(user)
        if service is not None:
            for memories in result.memories:
                import_bytes(service, memories)
        if result.session is not None and result.session_file is not None:
            write_session(self.folder(user), result.session, result.session_file)

    def close(self) -> None:
        for store in self._stores:
            store.close()
        self._stores.clear()
        self._services.clear()


def seed(folder: Path, copy: NamespaceCopy, store: Callable[[], MemoryStore | None]) -> None:
    """Make the scratch namespace `folder` hold `copy`: its session files, then its store
    (opened by `store()` once the folder is claimed; None with memory off)."""
    claim_data_dir(folder)
    for name, data in copy.sessions.items():
        write_session(folder, name, data)
    opened = store()
    if opened is not None and copy.store is not None:
        with tempfile.TemporaryDirectory(prefix="la-copy-") as scratch:
            path = Path(scratch) / "memory.json"
            atomic_write_bytes(path, copy.store)
            opened.import_file(path)


def embedder_store(embedder: TextEmbedder) -> Callable[[Path], MemoryStore]:
    """Opens a namespace's store on `embedder`."""

    def open_at(folder: Path) -> MemoryStore:
        from ..memory.store import MemoryStore

        return MemoryStore.open(folder, embedder)

    return open_at
