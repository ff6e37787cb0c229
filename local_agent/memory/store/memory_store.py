"""The long-term memory store: records with vectors, a journal, snapshots, and hybrid recall.

Files and their crash safety are described in layout.py, journal.py, snapshot.py and
compaction.py. Several processes may share one data dir: writes take a file lock (held only
for the write), and before every write and recall a store picks up what others appended to
the journal (a cheap stat and a read of the new bytes), or reloads if another process
compacted. Scores follow one convention: higher means closer (see recall.py).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import filelock

from ...errors import InputError, StoreBusyError, StoreError
from ...files import PRIVATE_FILE, atomic_write_bytes, refuse_symlink
from ...types import MemoryRecord, RecallHit
from ..index import recall as recall_module
from .compaction import compaction_due, write_generation
from .datadir import claim_data_dir
from .drafts import as_input, check_kinds, claim_id, make_draft
from ..index.embedder import Embedder, embed_with_progress
from .forgetting import Origin, delete_copies_holding, scrubbed, sources_of, turns_holding
from .journal import JournalOp, append_lines, create_journal, encode_op, read_journal, truncate_tail
from .layout import LOCK_NAME, SNAPSHOT_NAME, FileDamage, StorePaths, identity, notice
from .loading import Loaded, corrupt, load, replay
from .records import KINDS, check_key, check_kind
from ..index.render import dense_text, embedding_id
from ..index.state import MemoryState
from .transfer import check_links, export_bytes, read_export, refuse_store_folders, write_private_file



class MemoryStore:
    """Open with `MemoryStore.open(data_dir, embedder)`; close with `close()` (or `with`)."""

    def __init__(self, paths: StorePaths, embedder: Embedder, lock_timeout: float) -> None:
        self.paths = paths
        self.embedder = embedder
        self.lock_timeout = lock_timeout
        self.embedding_id = embedding_id(embedder.model_id)
        self._lock = filelock.FileLock(paths.lock, timeout=lock_timeout, mode=PRIVATE_FILE, thread_local=False)
        self._mutex = threading.RLock()
        self._closed = False
        self._view: Loaded | None = None

    @classmethod
    def open(cls, data_dir: Path, embedder: Embedder, *, lock_timeout: float = 5.0) -> "MemoryStore":
        """Open (creating if needed) the store in `data_dir`/memory. Raises StoreCorruptError
        naming a damaged file, DataDirError for a folder local-agent did not make or a link in
        the store, StoreError when the folder cannot be read or created."""
        if lock_timeout < 0:
            raise ValueError("lock_timeout must be 0 or more seconds")
        paths = StorePaths.for_data_dir(claim_data_dir(Path(data_dir)))
        store = cls(paths, embedder, lock_timeout)
        with store._mutex, _os_errors_as_store_errors(paths):
            paths.create()
            for path in paths.root.iterdir():
                refuse_symlink(path)
            store._reload()
            if store._loaded.needs_persist:
                store._persist_rebuilt()
        return store

    # -- reading ---------------------------------------------------------------------------------
    def get(self, id_or_prefix: str) -> MemoryRecord:
        """A record by id or by a unique prefix of 4+ characters (NotFoundError otherwise)."""
        with self._reading() as state:
            return state.get(id_or_prefix)

    def records(self, kind: str | None = None, include_inactive: bool = False) -> list[MemoryRecord]:
        """Records in the order they were stored; superseded ones only on request."""
        if kind is not None:
            as_input(check_kind, kind)
        with self._reading() as state:
            return [r for r in state.records if (kind is None or r.kind == kind) and (include_inactive or r.active)]

    def find_by_key(self, key: tuple[str, str]) -> MemoryRecord | None:
        """The active fact with this (subject, attribute) key, if any (case-insensitive)."""
        key = as_input(check_key, key)
        with self._reading() as state:
            return state.by_key(key) if key else None

    def recall(
        self, query: str, k: int = 6, *, kinds: tuple[str, ...] = ("fact", "turn"), min_score: float | None = None
    ) -> list[RecallHit]:
        """The k memories closest to `query` (hybrid dense + BM25, see recall.py), best first.
        `min_score` None uses the product default threshold."""
        kinds = check_kinds(kinds)
        if k <= 0 or not query.strip():
            return []
        with self._reading() as state:
            if not any(record.active and record.kind in kinds for record in state.records):
                return []  # nothing to find: don't load the embedding model for it
        vector = self.embedder.embed([query])[0]
        threshold = recall_module.DEFAULT_MIN_SCORE if min_score is None else min_score
        with self._reading() as state:
            return recall_module.hybrid_recall(state, query, vector, k=k, kinds=kinds, min_score=threshold)

    def nearest(self, text: str, k: int = 3, *, kinds: tuple[str, ...] = ("fact",)) -> list[RecallHit]:
        """The k active records most similar to `text` by cosine alone (for duplicate checks)."""
        kinds = check_kinds(kinds)
        if k <= 0 or not text.strip():
            return []
        vector = self.embedder.embed([text])[0]
        with self._reading() as state:
            return recall_module.nearest(state, vector, k=k, kinds=kinds)

    def stats(self) -> dict[str, Any]:
        with self._reading() as state:
            active = [r for r in state.records if r.active]
            files = {path.name: path.stat().st_size for path in self.paths.files()}
            return {
                "records": len(state),
                "active": len(active),
                "superseded": len(state) - len(active),
                "by_kind": {kind: sum(r.kind == kind for r in active) for kind in KINDS},
                "generation": self._loaded.generation,
                "journal_operations": state.journal_ops,
                "embedding": self.embedding_id,
                "folder": str(self.paths.root),
                "files": files,
                "bytes": sum(files.values()),
            }

    def export(self, path: Path) -> int:
        """Write every record (superseded ones too) to a JSON file; returns how many. InputError
        for a path inside the data dir's own folders."""
        refuse_store_folders(Path(path), self.paths.root.parent)
        with self._reading() as state:
            records = list(state.records)
        write_private_file(Path(path), export_bytes(records, self.embedding_id))
        return len(records)

    # -- writing ---------------------------------------------------------------------------------
    def add(
        self,
        text: str,
        kind: str,
        *,
        provenance: dict[str, Any] | None = None,
        decision: dict[str, Any] | None = None,
        key: tuple[str, str] | None = None,
        record_id: str | None = None,
    ) -> MemoryRecord:
        item = dict(text=text, kind=kind, provenance=provenance, decision=decision, key=key, record_id=record_id)
        return self.add_many([item])[0]

    def add_many(self, items: list[dict[str, Any]]) -> list[MemoryRecord]:
        """Store several records with one embedding batch, one lock and one journal write.
        Each item has add()'s keyword names (text and kind required)."""
        drafts = [make_draft(item) for item in items]
        if not drafts:
            return []
        vectors = embed_with_progress(self.embedder, [dense_text(d) for d, _ in drafts], "embedding memories")
        with self._writing() as state:
            taken = set(state.row_of)
            ops = []
            for seq, ((draft, wanted_id), vector) in enumerate(zip(drafts, vectors), start=state.next_seq):
                record = replace(draft, id=claim_id(wanted_id, seq, draft, taken))
                ops.append(JournalOp("add", record, seq=seq, vector=vector, embedding_id=self.embedding_id))
            self._append(ops)
        return [op.record for op in ops]

    def touch(self, record_id: str, *, provenance: dict[str, Any] | None = None) -> MemoryRecord:
        """Note that a memory was said again: refresh `updated`, count it in provenance["seen"]
        and keep the latest mention's provenance as provenance["last_seen"]."""
        if provenance is not None and not isinstance(provenance, dict):
            raise InputError("provenance must be a dict")
        with self._writing() as state:
            record = state.get(record_id)
            origin = dict(record.provenance)
            origin["seen"] = int(origin.get("seen", 1)) + 1
            if provenance:
                origin["last_seen"] = provenance
            updated = replace(record, updated=time.time(), provenance=origin)
            self._append([JournalOp("update", updated)])
        return updated

    def supersede(
        self,
        old_id: str,
        text: str,
        *,
        provenance: dict[str, Any] | None = None,
        decision: dict[str, Any] | None = None,
        key: tuple[str, str] | None = None,
    ) -> MemoryRecord:
        """Store `text` as the new version of `old_id`. The old record keeps its text, points to
        the new one with `superseded_by` and leaves recall."""
        old = self.get(old_id)
        item = dict(text=text, kind=old.kind, provenance=provenance, decision=decision, key=key or old.key)
        draft, _ = make_draft(item)
        draft = replace(draft, supersedes=old.id)
        vector = self.embedder.embed([dense_text(draft)])[0]
        with self._writing() as state:
            old = state.get(old.id)
            if not old.active:
                raise InputError(f"memory {old.id} was already replaced by {old.superseded_by}")
            seq = state.next_seq
            record = replace(draft, id=claim_id(None, seq, draft, set(state.row_of)))
            op = JournalOp("supersede", record, seq=seq, vector=vector, embedding_id=self.embedding_id, old_id=old.id)
            self._append([op])
        return record

    def origin(self, id_or_prefix: str) -> Origin:
        """A memory with the messages it was made from and the turn memories that hold them."""
        with self._reading() as state:
            return _origin(state, state.get(id_or_prefix))

    def forget(self, id_or_prefix: str) -> MemoryRecord:
        """Remove a memory, and the earlier versions it replaced, from recall and their text from
        every file of the store: the journal, snapshot and vectors are rewritten without them,
        and kept copies holding them are deleted."""
        with self._writing() as state:
            record = state.get(id_or_prefix)
            self._forget_locked(state, [record.id], keep_source=True)
        return record

    def forget_with_source(self, id_or_prefix: str) -> Origin:
        """forget(), and the messages the memory was made from: the turn memories holding them
        go too, and their words leave every other record's provenance. (The session
        transcripts are not the store's: see app.forget_memory.)"""
        with self._writing() as state:
            origin = _origin(state, state.get(id_or_prefix))
            self._forget_locked(state, [origin.record.id, *(turn.id for turn in origin.turns)], keep_source=False)
        return origin

    def forget_all(self) -> None:
        """Delete every file local-agent made in the memory folder (the empty lock file stays;
        files it did not make are left alone) and start empty."""
        with self._writing():
            for path in self.paths.own_files():
                if path.name != LOCK_NAME:
                    path.unlink(missing_ok=True)
            self._loaded.state = MemoryState(self.embedder.dimension)
            self._compact_locked()

    def import_file(self, path: Path) -> int:
        """Add the records of an export file (validated first, their version links against the
        store too; InputError if it is bad). Records whose id is already stored are skipped.
        Returns how many were added."""
        records = read_export(Path(path))
        with self._reading() as state:
            check_links(Path(path), records, {record.id: record.superseded_by for record in state.records})
            records = [record for record in records if record.id not in state.row_of]
        vectors = embed_with_progress(self.embedder, [dense_text(r) for r in records], "embedding imported memories")
        with self._writing() as state:
            fresh = [(r, v) for r, v in zip(records, vectors) if r.id not in state.row_of]
            ops = [
                JournalOp("add", record, seq=seq, vector=vector, embedding_id=self.embedding_id)
                for seq, (record, vector) in enumerate(fresh, start=state.next_seq)
            ]
            self._append(ops)
        return len(ops)

    def compact(self) -> None:
        """Fold the journal into a new snapshot now (it also happens on its own)."""
        with self._writing():
            self._compact_locked()

    def close(self) -> None:
        """Drop the in-memory indexes. Safe to call twice."""
        with self._mutex:
            self._closed = True
            self._view = None

    def __enter__(self) -> "MemoryStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- internals: state, sync, lock --------------------------------------------------------------
    @property
    def _loaded(self) -> Loaded:
        if self._view is None:
            raise StoreError("the memory store is closed")
        return self._view

    def _reload(self) -> None:
        self._view = load(self.paths, self.embedder, self.embedding_id)

    @contextmanager
    def _reading(self) -> Iterator[MemoryState]:
        with self._mutex:
            self._check_open()
            self._sync()
            yield self._loaded.state

    @contextmanager
    def _writing(self) -> Iterator[MemoryState]:
        with self._mutex, _os_errors_as_store_errors(self.paths):
            self._check_open()
            with self._locked():
                self._sync()
                self._prepare_journal()
                yield self._loaded.state
                view = self._loaded
                if view.needs_persist or compaction_due(view.state.journal_ops, len(view.state)):
                    self._compact_locked()

    @contextmanager
    def _locked(self) -> Iterator[None]:
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

    def _check_open(self) -> None:
        if self._closed:
            raise StoreError("the memory store is closed")

    def _sync(self) -> None:
        """Catch up with other processes: new journal lines are applied; a replaced snapshot or
        journal (another process compacted) means a full reload."""
        view = self._loaded
        if identity(self.paths.snapshot) != view.snapshot_id:
            return self._reload()
        now = identity(self.paths.journal)
        if now is None or view.journal_id is None:
            if now != view.journal_id:
                self._reload()
            return None
        if now[:2] != view.journal_id or now[2] < view.offset:
            return self._reload()
        if now[2] > view.offset and not view.journal_stale:
            self._read_new_lines(view)
        return None

    def _read_new_lines(self, view: Loaded) -> None:
        try:
            chunk = read_journal(self.paths.journal, view.offset, view.lines)
        except FileDamage as damage:
            raise corrupt(damage) from None
        if chunk is None or chunk.generation != view.generation:
            return self._reload()
        replay(view.state, chunk.ops, self.embedder, self.embedding_id, self.paths.journal)
        view.offset, view.lines = chunk.end, chunk.lines

    def _prepare_journal(self) -> None:
        """Under the lock: make sure the journal continues our generation and ends on a whole
        line (cutting a torn line a crashed writer left)."""
        view = self._loaded
        now = identity(self.paths.journal)
        if now is None or view.journal_stale:
            view.offset = create_journal(self.paths.journal, view.generation)
            view.lines, view.journal_stale = 1, False
            view.journal_id = identity(self.paths.journal)[:2]
        elif now[2] > view.offset:
            notice(f"dropped a torn last line of {self.paths.journal} ({now[2] - view.offset} bytes)")
            truncate_tail(self.paths.journal, view.offset)

    def _append(self, ops: list[JournalOp]) -> None:
        """Write the operations to the journal (one write, one fsync), then apply them."""
        if not ops:
            return
        view = self._loaded
        data = b"".join(encode_op(op) for op in ops)
        append_lines(self.paths.journal, data)
        view.offset += len(data)
        view.lines += len(ops)
        view.state.apply(ops)

    def _compact_locked(self) -> None:
        view = self._loaded
        if view.migrated_from is not None:
            self._keep_migrated_original(view.migrated_from)
        generation = view.generation + 1
        view.offset = write_generation(self.paths, view.state, generation, self.embedding_id)
        view.generation, view.lines, view.journal_stale = generation, 1, False
        view.snapshot_id = identity(self.paths.snapshot)
        view.journal_id = identity(self.paths.journal)[:2]
        view.state.journal_ops = 0
        view.needs_persist, view.migrated_from = False, None

    def _persist_rebuilt(self) -> None:
        try:
            with self._writing():
                pass  # _writing compacts because needs_persist is set
        except StoreBusyError:
            notice("could not save the rebuilt vectors now (another process is writing); "
                   "they will be rebuilt again next time")

    def _keep_migrated_original(self, version: int) -> None:
        """Keep the file in its old format beside the new one, in case the user wants it."""
        backup = self.paths.root / f"{SNAPSHOT_NAME}.v{version}.bak"
        if self.paths.snapshot.is_file() and not backup.exists():
            atomic_write_bytes(backup, self.paths.snapshot.read_bytes())

    def _forget_locked(self, state: MemoryState, ids: list[str], *, keep_source: bool) -> None:
        """Rewrite the store without `ids` (and the versions they replaced) and with their words
        scrubbed from the records kept; then delete kept copies holding them."""
        gone = [state.get(ident) for ident in dict.fromkeys(v for i in ids for v in state.versions_of(i))]
        texts = {record.text for record in gone}
        if not keep_source:
            texts |= {source.text for source in sources_of(gone)}
        records, vectors = state.without(*ids)
        records = scrubbed(records, texts)
        self._loaded.state = MemoryState.build(records, vectors, state.next_seq, self.embedder.dimension)
        self._compact_locked()
        delete_copies_holding(self.paths, texts | {source.text for source in sources_of(gone)})


# -- helpers -------------------------------------------------------------------------------------


@contextmanager
def _os_errors_as_store_errors(paths: StorePaths) -> Iterator[None]:
    """A full disk or a permission problem becomes one StoreError line, not a traceback."""
    try:
        yield
    except OSError as exc:
        raise StoreError(f"cannot use the memory store in {paths.root}: {exc.strerror or exc}") from exc


def _origin(state: MemoryState, record: MemoryRecord) -> Origin:
    """Where `record` (and the versions it replaced) came from, and the turns holding that."""
    versions = [record, *state.versions_before(record.id)]
    sources = sources_of(versions)
    turns = turns_holding((r for r in state.records if r.id != record.id), sources)
    return Origin(record=record, sources=sources, turns=turns)
