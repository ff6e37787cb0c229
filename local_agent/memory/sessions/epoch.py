"""The forget epoch: a marker that `forget --all` replaces, so that a process still holding what
was said before it (an open chat) finds out before it writes any of that back.

    <data_dir>/epoch           a random token; every `forget --all` writes a new one
    <data_dir>/sessions.lock   serializes writes of session files, the chat history and the epoch
                               (held for one read-merge-write, never for a whole chat)

A writer checks, under the lock, that the epoch is the one it read before it read the data it
is about to write back; a changed epoch means that data was forgotten and must not return.
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import filelock

from ...errors import StoreBusyError, StoreError
from ...process.files import PRIVATE_FILE, atomic_write_text, ensure_private_dir
from ..store.datadir import EPOCH_NAME, SESSIONS_LOCK_NAME

LOCK_TIMEOUT_S = 10.0


class ForgetGuard:
    """The epoch of one data dir and the lock that every session or history write takes."""

    def __init__(self, data_dir: Path, timeout: float = LOCK_TIMEOUT_S) -> None:
        self.data_dir = Path(data_dir)
        self.timeout = timeout
        self._lock = filelock.FileLock(self.data_dir / SESSIONS_LOCK_NAME, timeout=timeout, mode=PRIVATE_FILE,
                                       thread_local=False)
        self._threads = threading.RLock()  # the file lock is shared by this process's threads

    @contextmanager
    def locked(self) -> Iterator[None]:
        with self._threads:
            ensure_private_dir(self.data_dir)
            try:
                self._lock.acquire()
            except filelock.Timeout:
                raise StoreBusyError(
                    f"another local-agent process holds {self._lock.lock_file} "
                    f"(waited {self.timeout:g} s); try again"
                ) from None
            try:
                yield
            finally:
                self._lock.release()

    def current(self) -> str:
        """The epoch now ("" before the first `forget --all`). Read it before the data it guards."""
        try:
            return (self.data_dir / EPOCH_NAME).read_text(encoding="utf-8").strip()
        except FileNotFoundError:
            return ""
        except (OSError, UnicodeDecodeError) as exc:
            raise StoreError(f"cannot read {self.data_dir / EPOCH_NAME}: {exc}") from None

    def bump(self) -> None:
        with self.locked():
            atomic_write_text(self.data_dir / EPOCH_NAME, secrets.token_hex(8) + "\n")


def bump_epoch(data_dir: Path) -> None:
    """Mark everything read so far as forgotten, for every process on `data_dir`. `forget --all`
    calls it before deleting and again after, so a process that read the old data in between
    sees the change too."""
    ForgetGuard(data_dir).bump()
