"""The store's view of its files, kept current: the state loaded from them, how far into the
journal it has read, and the file lock that writers take.

Several processes may share one data dir. Before every read and write a store catches up with
the others: new journal lines are applied (a cheap stat and a read of the new bytes), and a
replaced snapshot or journal (another process compacted) means a full reload. A writer, under
the lock, makes sure the journal continues its generation and ends on a whole line, appends
whole lines in one write, and folds the journal into a new snapshot once it has grown.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

import filelock

from ...errors import StoreBusyError, StoreError
from ...process.files import PRIVATE_FILE, atomic_write_bytes, refuse_symlink
from ..index.embedder import TextEmbedder
from ..index.state import MemoryState
from .compaction import compaction_due, write_generation
from .journal import JournalOp, append_lines, create_journal, encode_op, read_journal, truncate_tail
from .layout import SNAPSHOT_NAME, FileDamage, StorePaths, corrupt, identity
from .loading import Loaded, load
from .replay import apply_ops, replay

log = logging.getLogger(__name__)

CLOSED = "the memory store is closed"


class JournalSync:
    """One store's loaded view of `paths` and the bookkeeping that keeps it in step."""

    def __init__(self, paths: StorePaths, embedder: TextEmbedder, embedding_id: str, lock_timeout: float) -> None:
        self.paths = paths
        self.embedder = embedder
        self.embedding_id = embedding_id
        self.lock_timeout = lock_timeout
        self._lock = filelock.FileLock(paths.lock, timeout=lock_timeout, mode=PRIVATE_FILE, thread_local=False)
        self._view: Loaded | None = None

    @property
    def view(self) -> Loaded:
        """What was loaded (StoreError once the store is closed)."""
        if self._view is None:
            raise StoreError(CLOSED)
        return self._view

    def check_open(self) -> None:
        if self._view is None:
            raise StoreError(CLOSED)

    @property
    def state(self) -> MemoryState:
        return self.view.state

    def load(self) -> None:
        self._view = load(self.paths, self.embedder, self.embedding_id)

    def close(self) -> None:
        self._view = None

    def catch_up(self) -> None:
        """Take in what other processes wrote: new journal lines are applied; a replaced
        snapshot or journal (another process compacted) means a full reload."""
        view = self.view
        if identity(self.paths.snapshot) != view.snapshot_id:
            return self.load()
        now = identity(self.paths.journal)
        if now is None or view.journal_id is None:
            if (now is None) != (view.journal_id is None):  # the journal appeared or went
                self.load()
            return None
        if now[:2] != view.journal_id or now[2] < view.offset:
            return self.load()
        if now[2] > view.offset and not view.journal_stale:
            self._read_new_lines(view)
        return None

    def _read_new_lines(self, view: Loaded) -> None:
        try:
            chunk = read_journal(self.paths.journal, view.offset, view.lines)
        except FileDamage as damage:
            raise corrupt(damage) from None
        if chunk is None or chunk.generation != view.generation:
            return self.load()
        replay(view.state, chunk.ops, self.embedder, self.embedding_id, self.paths.journal)
        view.offset, view.lines = chunk.end, chunk.lines

    @contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the store's file lock (StoreBusyError after `lock_timeout` seconds)."""
        refuse_symlink(self.paths.lock)  # opening the lock file truncates what it points to
        try:
            self._lock.acquire(timeout=self.lock_timeout)
        except filelock.Timeout:
            raise StoreBusyError(
                f"memory store is busy: another local-agent process is writing to {self.paths.root} "
                f"(waited {self.lock_timeout:g} s); try again"
            ) from None
        try:
            yield
        finally:
            self._lock.release()

    def prepare_journal(self) -> None:
        """Under the lock: make sure the journal continues our generation and ends on a whole
        line (cutting a torn line a crashed writer left)."""
        view = self.view
        now = identity(self.paths.journal)
        if now is None or view.journal_stale:
            view.offset = create_journal(self.paths.journal, view.generation)
            view.lines, view.journal_stale = 1, False
            view.journal_id = _device_and_inode(self.paths)
        elif now[2] > view.offset:
            log.warning("dropped a torn last line of %s (%d bytes)", self.paths.journal, now[2] - view.offset)
            truncate_tail(self.paths.journal, view.offset)

    def append(self, ops: list[JournalOp]) -> None:
        """Under the lock: write the operations to the journal (one write, one fsync), then
        apply them."""
        if not ops:
            return
        view = self.view
        data = b"".join(encode_op(op) for op in ops)
        append_lines(self.paths.journal, data)
        view.offset += len(data)
        view.lines += len(ops)
        apply_ops(view.state, ops)

    def replace_state(self, state: MemoryState) -> None:
        """Under the lock: make `state` the store's, and write it as a new generation."""
        self.view.state = state
        self.compact()

    def compact_if_due(self) -> None:
        """Under the lock: compact when the journal has grown, or the files need rewriting."""
        view = self.view
        if view.needs_persist or compaction_due(view.state.journal_ops, len(view.state)):
            self.compact()

    def compact(self) -> None:
        """Under the lock: fold the journal into a new snapshot generation, and open it (the
        state then maps the new files and lets go of the old generation's, which compaction
        deleted; opening reads no record)."""
        view = self.view
        if view.migrated_from is not None:
            self._keep_migrated_original(view.migrated_from)
        write_generation(self.paths, view.state, view.generation + 1, self.embedding_id)
        self.load()

    def _keep_migrated_original(self, version: int) -> None:
        """Keep the file in its old format beside the new one, in case the user wants it."""
        backup = self.paths.root / f"{SNAPSHOT_NAME}.v{version}.bak"
        if self.paths.snapshot.is_file() and not backup.exists():
            atomic_write_bytes(backup, self.paths.snapshot.read_bytes())


def _device_and_inode(paths: StorePaths) -> tuple[int, int] | None:
    """The journal just written, as `Loaded.journal_id` tells it from a replaced one."""
    now = identity(paths.journal)
    return now[:2] if now else None
