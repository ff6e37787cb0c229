"""Reading a store from disk into a MemoryState: snapshot, vectors, then the journal.

The usual way reads no record: the snapshot's header names its columns file (columns.py), and
the records, vectors, lexical and approximate indexes are memory-mapped where they lie. When the
columns file cannot be used (missing, stale, an older format) the snapshot is read whole, as
before columns existed, and the columns are written again for the next open.

Vectors come from the vector file, never from re-embedding, unless that file is missing or does
not match the records (or was made by another embedding model): then they are rebuilt from the
text with a logged warning, and the caller persists them. Another process may compact while
we read; that shows as files changing under us, and the load simply starts again.

Checksums of file contents: a file up to VERIFY_MAX_BYTES (about ten thousand memories' vectors)
is checked whole at open. A larger one is checked for its structure (shape, lengths, stamps),
and whole by `memory doctor`: reading 1.5 GB of vectors to check them would cost a million-memory
store ten times the rest of its opening, and bring every page of them into memory.
"""

from __future__ import annotations

import gc
import logging
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import numpy as np

from ...errors import StoreError
from ..index.embedder import TextEmbedder, embed_with_progress
from ..index.render import dense_text
from ..index.state import MemoryState, Records
from ..index.vectors import approximate_due
from .approx_file import approx_stamp, load_approx
from .columns import SavedColumns, index_whole, open_columns
from .journal import JournalChunk, read_journal
from .layout import FileDamage, FileIdentity, StorePaths, corrupt, identity
from .lexical_file import load_or_rebuild, save_quietly, stamp_for
from .replay import replay
from .snapshot import (
    SNAPSHOT_VERSION,
    Head,
    OpenFile,
    Snapshot,
    VectorMeta,
    ids_checksum,
    load_vectors,
    open_snapshot,
    read_snapshot,
)

log = logging.getLogger(__name__)

LOAD_ATTEMPTS = 5
# From this many records built in memory, a loaded store is frozen out of the cyclic garbage
# collector: with a million records, the first full collection after opening walked every one
# of them (1.1 s, landing in whatever came next, such as the first answer).
FREEZE_MIN_RECORDS = 50_000
VERIFY_MAX_BYTES = 16 * 2**20

T = TypeVar("T")


@dataclass
class Loaded:
    state: MemoryState
    generation: int
    snapshot_id: FileIdentity | None
    journal_id: tuple[int, int] | None  # (device, inode) of the journal that was read
    offset: int  # bytes of the journal taken (just past its last good line)
    lines: int
    journal_stale: bool  # the journal belongs to an older generation (a compaction was cut short)
    needs_persist: bool  # vectors were re-made or the format migrated: write a new generation
    migrated_from: int | None


@dataclass
class _Opened:
    """The snapshot's part of a load: its state before the journal."""

    state: MemoryState
    generation: int
    remade: bool  # vectors re-made from text, or an approximate index to rebuild
    migrated_from: int | None = None


class _Moved(Exception):
    """Another process replaced files while we were reading them."""


def load(paths: StorePaths, embedder: TextEmbedder, embedding_id: str) -> Loaded:
    for _ in range(LOAD_ATTEMPTS):
        try:
            with _collector_paused():
                loaded = _load_once(paths, embedder, embedding_id)
                if len(loaded.state) - loaded.state.records.saved_count >= FREEZE_MIN_RECORDS:  # made in memory
                    gc.freeze()  # records hold no reference cycles: reference counts still free them
                return loaded
        except _Moved:
            continue
    raise StoreError(f"{paths.root} kept changing while it was read; try again")


@contextmanager
def _collector_paused() -> Iterator[None]:
    """No cyclic garbage collection while a store's records are made: a hundred thousand new
    objects would trigger full collections over all of them again and again (it doubled the
    time to open a large store). Loading makes no reference cycles to collect."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _load_once(paths: StorePaths, embedder: TextEmbedder, embedding_id: str) -> Loaded:
    snapshot_id = identity(paths.snapshot)
    head, opened = open_snapshot(paths.snapshot)
    saved, reason = None, ""
    if head is not None and opened is not None and head.version == SNAPSHOT_VERSION:
        saved, reason = open_columns(paths.root, paths.snapshot, head, opened, check_up_to=VERIFY_MAX_BYTES)
    if saved is not None and head is not None:
        base = _from_columns(paths, head, saved, embedder, embedding_id, snapshot_id)
    else:
        base = _from_whole(paths, embedder, embedding_id, snapshot_id, head, opened, reason)
    journal_id = identity(paths.journal)
    chunk = _guarded(lambda: read_journal(paths.journal), paths, snapshot_id)
    if journal_id is not None and (identity(paths.journal) or ())[:2] != journal_id[:2]:
        raise _Moved  # replaced while we read it (appends alone are fine)
    stale = _journal_is_stale(paths, chunk, base.generation, snapshot_id)
    if identity(paths.snapshot) != snapshot_id:
        paths.lexical(base.generation).unlink(missing_ok=True)  # may hold words since forgotten
        raise _Moved
    state = base.state
    replayed = replay(state, [] if chunk is None or stale else chunk.ops, embedder, embedding_id, paths.journal)
    if chunk is not None and chunk.torn and not stale:
        log.warning("ignored a torn last line in %s (%d bytes): a write that did not finish", paths.journal, chunk.torn)
    return Loaded(
        state=state,
        generation=base.generation,
        snapshot_id=snapshot_id,
        journal_id=journal_id[:2] if journal_id else None,
        offset=chunk.end if chunk else 0,
        lines=chunk.lines if chunk else 0,
        journal_stale=stale,
        needs_persist=base.remade or replayed or base.migrated_from is not None,
        migrated_from=base.migrated_from,
    )


# -- the usual way: through the columns ---------------------------------------------------------


def _from_columns(paths: StorePaths, head: Head, saved: SavedColumns, embedder: TextEmbedder, embedding_id: str,
                  snapshot_id: FileIdentity | None) -> _Opened:
    """The snapshot's state with no record read (unless its vectors must be re-made)."""
    count = len(saved)
    records = Records(saved)
    vectors, remade = _vectors(paths, head.vectors, count, saved.ids_sha256, embedder, embedding_id, snapshot_id,
                               lambda: [dense_text(record) for record in records])
    stamp = stamp_for(head.generation, records, saved.records_sha256)  # (the lines' CRC-32s check it as they are read)
    lexical_path = paths.lexical(head.generation)
    lexical = load_or_rebuild(lexical_path, stamp, count > 0, check_up_to=VERIFY_MAX_BYTES)
    state = MemoryState.from_saved(saved, vectors, head.next_seq, embedder.dimension, lexical)
    if lexical is None and count:
        save_quietly(lexical_path, state.lexical, stamp)
    return _Opened(state, head.generation, remade or _approx_missing(paths, state, head.generation, head.vectors))


# -- reading the snapshot whole ------------------------------------------------------------------


def _from_whole(paths: StorePaths, embedder: TextEmbedder, embedding_id: str, snapshot_id: FileIdentity | None,
                head: Head | None, opened: OpenFile | None, reason: str) -> _Opened:
    """The snapshot read record by record (no usable columns), its columns written again."""
    snapshot = _guarded(lambda: read_snapshot(paths.snapshot), paths, snapshot_id)
    snapshot = snapshot or Snapshot(generation=0, next_seq=0, records=[], vectors=None)
    records = snapshot.records
    ids_sha256 = ids_checksum([record.id for record in records])
    vectors, remade = _vectors(paths, snapshot.vectors, len(records), ids_sha256, embedder, embedding_id,
                               snapshot_id, lambda: [dense_text(record) for record in records])
    stamp = stamp_for(snapshot.generation, records, snapshot.body_sha256 if snapshot.lines else None)
    lexical_path = paths.lexical(snapshot.generation)
    lexical = load_or_rebuild(lexical_path, stamp, bool(records), check_up_to=VERIFY_MAX_BYTES)
    state = MemoryState.build(records, vectors, snapshot.next_seq, embedder.dimension, lexical)
    if lexical is None and records:
        save_quietly(lexical_path, state.lexical, stamp)
    if head is not None and opened is not None and snapshot.migrated_from is None and records:
        _save_columns(paths, snapshot, head, opened, reason)
    remade = remade or _approx_missing(paths, state, snapshot.generation, snapshot.vectors)
    return _Opened(state, snapshot.generation, remade, snapshot.migrated_from)


def _save_columns(paths: StorePaths, snapshot: Snapshot, head: Head, opened: OpenFile, reason: str) -> None:
    """Write the columns of a snapshot read whole, for the next open (a failure only costs
    that open the same whole read)."""
    path = paths.columns(snapshot.generation)
    indexed = index_whole(snapshot, head, opened) if head.columns == path.name else None
    if indexed is None:
        return  # not laid out one record a line (edited by hand?): read whole until the next compaction
    log.warning("%s: indexing the %d memories of %s again", reason, len(snapshot.records), paths.snapshot.name)
    try:
        indexed.write(path)
    except OSError as exc:
        log.warning("could not save %s (%s); the snapshot will be read whole next time", path.name, exc)


# -- shared parts --------------------------------------------------------------------------------


def _vectors(paths: StorePaths, meta: VectorMeta | None, count: int, ids_sha256: str, embedder: TextEmbedder,
             embedding_id: str, snapshot_id: FileIdentity | None,
             texts: Callable[[], list[str]]) -> tuple[np.ndarray, bool]:
    """The snapshot's vectors, and whether they had to be re-made from the text."""
    if not count:
        return np.zeros((0, embedder.dimension), dtype=np.float32), False
    reason = "the snapshot has no vector file"
    if meta is not None:
        path = paths.root / meta.file
        try:
            verify = _size(path) <= VERIFY_MAX_BYTES
            matrix, reason = load_vectors(path, meta, embedding_id, ids_sha256, verify=verify)
        except FileNotFoundError:
            if identity(paths.snapshot) != snapshot_id:
                raise _Moved from None
            matrix, reason = None, f"{path.name} is missing"
        if matrix is not None and len(matrix) != count:
            matrix, reason = None, f"{path.name} does not match the records in the snapshot"
        if matrix is not None:
            return matrix, False
    log.warning("%s: rebuilding the vectors of %d memories from their text", reason, count)
    return embed_with_progress(embedder, texts(), "re-embedding memories"), True


def _size(path: Path) -> int:
    return os.stat(path).st_size


def _approx_missing(paths: StorePaths, state: MemoryState, generation: int, meta: VectorMeta | None) -> bool:
    """Whether the approximate index a store of this size keeps has to be rebuilt (it is
    memory-mapped into `state` when it can be used)."""
    if not approximate_due(len(state)) or meta is None:
        return False
    saved = approx_stamp(generation, len(state), meta.sha256)
    return not load_approx(paths.approx(generation), state.dense, saved)


def _guarded(read: Callable[[], T], paths: StorePaths, snapshot_id: FileIdentity | None) -> T:
    """Run a read; damage seen while the snapshot was being replaced is a move, not damage."""
    try:
        return read()
    except FileDamage as damage:
        if identity(paths.snapshot) != snapshot_id:
            raise _Moved from None
        raise corrupt(damage) from None


def _journal_is_stale(paths: StorePaths, chunk: JournalChunk | None, generation: int,
                      snapshot_id: FileIdentity | None) -> bool:
    if chunk is None or chunk.generation == generation:
        return False
    if chunk.generation < generation:
        return True  # its operations are already in the snapshot
    if identity(paths.snapshot) != snapshot_id:
        raise _Moved
    raise corrupt(FileDamage(paths.journal, f"continues generation {chunk.generation}, but "
                                            f"{paths.snapshot.name} is generation {generation}"))
