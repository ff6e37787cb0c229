"""Reading a whole store from disk into a MemoryState: snapshot, vectors, then the journal.

Vectors come from the vector file, never from re-embedding, unless that file is missing or does
not match the records (or was made by another embedding model): then they are rebuilt from the
text with a logged warning, and the caller persists them. Another process may compact while
we read; that shows as files changing under us, and the load simply starts again.
"""

from __future__ import annotations

import gc
import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from ...errors import StoreError
from ..index.embedder import TextEmbedder, embed_with_progress
from ..index.render import dense_text
from ..index.state import MemoryState
from ..index.vectors import approximate_due
from .approx_file import approx_stamp, load_approx
from .journal import JournalChunk, read_journal
from .layout import FileDamage, FileIdentity, StorePaths, corrupt, identity
from .lexical_file import load_or_rebuild, save_quietly, stamp_for
from .replay import replay
from .snapshot import Snapshot, load_vectors, read_snapshot, vectors_digest

log = logging.getLogger(__name__)

LOAD_ATTEMPTS = 5
# From this many records a loaded store is frozen out of the cyclic garbage collector: with a
# million records, the first full collection after opening walked every one of them (1.1 s,
# landing in whatever came next, such as the first answer), and so would each later one.
FREEZE_MIN_RECORDS = 50_000

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


class _VectorDigest:
    """The checksum of the vector file a snapshot names, computed in a thread while the
    records are parsed: hashlib lets go of the GIL over a large buffer, so on two cores the
    check costs nothing more. Any problem leaves it to load_vectors to read the file again."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._thread: threading.Thread | None = None
        self._found: tuple[Path, FileIdentity | None, str] | None = None

    def start(self, header: dict[str, Any]) -> None:
        meta = header.get("vectors")
        name = meta.get("file") if isinstance(meta, dict) else None
        if isinstance(name, str) and name == Path(name).name:
            self._thread = threading.Thread(target=self._run, args=(self.root / name,), daemon=True)
            self._thread.start()

    def _run(self, path: Path) -> None:
        try:
            before = identity(path)
            digest = vectors_digest(np.load(path, allow_pickle=False, mmap_mode="r"))
            self._found = (path, before, digest)
        except (OSError, ValueError, EOFError):
            pass

    def digest(self, path: Path) -> str | None:
        """The checksum of `path` if the thread read that same file (not since replaced)."""
        if self._thread is not None:
            self._thread.join()
        if self._found is None or self._found[0] != path or self._found[1] != identity(path):
            return None
        return self._found[2]


class _Moved(Exception):
    """Another process replaced files while we were reading them."""


def load(paths: StorePaths, embedder: TextEmbedder, embedding_id: str) -> Loaded:
    for _ in range(LOAD_ATTEMPTS):
        try:
            with _collector_paused():
                loaded = _load_once(paths, embedder, embedding_id)
                if len(loaded.state) >= FREEZE_MIN_RECORDS:
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
    digest = _VectorDigest(paths.root)
    snapshot = _guarded(lambda: read_snapshot(paths.snapshot, on_header=digest.start), paths, snapshot_id)
    snapshot = snapshot or Snapshot(generation=0, next_seq=0, records=[], vectors=None)
    vectors, rebuilt = _snapshot_vectors(paths, snapshot, embedder, embedding_id, snapshot_id, digest)
    journal_id = identity(paths.journal)
    chunk = _guarded(lambda: read_journal(paths.journal), paths, snapshot_id)
    if journal_id is not None and (identity(paths.journal) or ())[:2] != journal_id[:2]:
        raise _Moved  # replaced while we read it (appends alone are fine)
    stale = _journal_is_stale(paths, chunk, snapshot, snapshot_id)
    state, approx_missing = _snapshot_state(paths, snapshot, vectors, embedder.dimension)
    if identity(paths.snapshot) != snapshot_id:
        paths.lexical(snapshot.generation).unlink(missing_ok=True)  # may hold words since forgotten
        raise _Moved
    replayed = replay(state, [] if chunk is None or stale else chunk.ops, embedder, embedding_id, paths.journal)
    if chunk is not None and chunk.torn and not stale:
        log.warning("ignored a torn last line in %s (%d bytes): a write that did not finish", paths.journal, chunk.torn)
    return Loaded(
        state=state,
        generation=snapshot.generation,
        snapshot_id=snapshot_id,
        journal_id=journal_id[:2] if journal_id else None,
        offset=chunk.end if chunk else 0,
        lines=chunk.lines if chunk else 0,
        journal_stale=stale,
        needs_persist=rebuilt or replayed or approx_missing or snapshot.migrated_from is not None,
        migrated_from=snapshot.migrated_from,
    )


def _snapshot_state(
    paths: StorePaths, snapshot: Snapshot, vectors: np.ndarray, dimension: int
) -> tuple[MemoryState, bool]:
    """The snapshot's records with the saved lexical index, or one rebuilt (and saved) from them;
    and whether the approximate index a store of this size keeps has to be rebuilt."""
    stamp = stamp_for(snapshot.generation, snapshot.records, snapshot.records_sha256)
    path = paths.lexical(snapshot.generation)
    lexical = load_or_rebuild(path, stamp, bool(snapshot.records))
    state = MemoryState.build(snapshot.records, vectors, snapshot.next_seq, dimension, lexical)
    if lexical is None and snapshot.records:
        save_quietly(path, state.lexical, stamp)
    if not approximate_due(len(state)) or snapshot.vectors is None:
        return state, False
    saved = approx_stamp(snapshot.generation, len(state), snapshot.vectors.sha256)
    return state, not load_approx(paths.approx(snapshot.generation), state.dense, saved)


def _guarded(read: Callable[[], T], paths: StorePaths, snapshot_id: FileIdentity | None) -> T:
    """Run a read; damage seen while the snapshot was being replaced is a move, not damage."""
    try:
        return read()
    except FileDamage as damage:
        if identity(paths.snapshot) != snapshot_id:
            raise _Moved from None
        raise corrupt(damage) from None


def _snapshot_vectors(
    paths: StorePaths, snapshot: Snapshot, embedder: TextEmbedder, embedding_id: str,
    snapshot_id: FileIdentity | None, digest: _VectorDigest,
) -> tuple[np.ndarray, bool]:
    """The snapshot's vectors, and whether they had to be re-made from the text."""
    records = snapshot.records
    if not records:
        return np.zeros((0, embedder.dimension), dtype=np.float32), False
    reason = "the snapshot has no vector file"
    if snapshot.vectors is not None:
        path = paths.root / snapshot.vectors.file
        try:
            ids = [r.id for r in records]
            matrix, reason = load_vectors(path, snapshot.vectors, ids, embedding_id, digest.digest(path))
        except FileNotFoundError:
            if identity(paths.snapshot) != snapshot_id:
                raise _Moved from None
            matrix, reason = None, f"{path.name} is missing"
        if matrix is not None:
            return matrix, False
    log.warning("%s: rebuilding the vectors of %d memories from their text", reason, len(records))
    texts = [dense_text(record) for record in records]
    return embed_with_progress(embedder, texts, "re-embedding memories"), True


def _journal_is_stale(
    paths: StorePaths, chunk: JournalChunk | None, snapshot: Snapshot, snapshot_id: FileIdentity | None
) -> bool:
    if chunk is None or chunk.generation == snapshot.generation:
        return False
    if chunk.generation < snapshot.generation:
        return True  # its operations are already in the snapshot
    if identity(paths.snapshot) != snapshot_id:
        raise _Moved
    raise corrupt(FileDamage(paths.journal, f"continues generation {chunk.generation}, but "
                                            f"{paths.snapshot.name} is generation {snapshot.generation}"))
