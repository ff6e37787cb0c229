"""The long-term memory store: records with vectors, a journal, snapshots, and hybrid recall.

Files and their crash safety are described in layout.py, journal.py, snapshot.py and
compaction.py. Several processes may share one data dir: writes take a file lock (held only
for the write), and before every write and recall a store picks up what others appended to
the journal (a cheap stat and a read of the new bytes), or reloads if another process
compacted. Scores follow one convention: higher means closer (see recall.py).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import filelock

from ..errors import InputError, StoreBusyError, StoreError
from ..files import PRIVATE_FILE, atomic_write_bytes
from ..types import MemoryRecord, RecallHit
from . import recall as recall_module
from .compaction import compaction_due, write_generation
from .doctor import doctor
from .embedder import Embedder, embed_with_progress
from .journal import JournalOp, append_lines, create_journal, encode_op, read_journal, truncate_tail
from .layout import LOCK_NAME, SNAPSHOT_NAME, FileDamage, StorePaths, identity, notice
from .loading import Loaded, corrupt, load, replay
from .records import KINDS, check_id, check_key, check_kind, make_record_id, text_problem
from .render import dense_text, embedding_id
from .state import MemoryState
from .transfer import check_links, export_bytes, read_export, refuse_store_folders, write_private_file

__all__ = ["MemoryStore", "doctor"]

ITEM_FIELDS = frozenset({"text", "kind", "provenance", "decision", "key", "record_id"})


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
        naming a damaged file, StoreError when the folder cannot be read or created."""
        if lock_timeout < 0:
            raise ValueError("lock_timeout must be 0 or more seconds")
        paths = StorePaths.for_data_dir(Path(data_dir))
        store = cls(paths, embedder, lock_timeout)
        with store._mutex, _os_errors_as_store_errors(paths):
            paths.create()
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
            _as_input(check_kind, kind)
        with self._reading() as state:
            return [r for r in state.records if (kind is None or r.kind == kind) and (include_inactive or r.active)]

    def find_by_key(self, key: tuple[str, str]) -> MemoryRecord | None:
        """The active fact with this (subject, attribute) key, if any (case-insensitive)."""
        key = _as_input(check_key, key)
        with self._reading() as state:
            return state.by_key(key) if key else None

    def recall(
        self, query: str, k: int = 6, *, kinds: tuple[str, ...] = ("fact", "turn"), min_score: float | None = None
    ) -> list[RecallHit]:
        """The k memories closest to `query` (hybrid dense + BM25, see recall.py), best first.
        `min_score` None uses the product default threshold."""
        kinds = _check_kinds(kinds)
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
        kinds = _check_kinds(kinds)
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
        drafts = [_draft(item) for item in items]
        if not drafts:
            return []
        vectors = embed_with_progress(self.embedder, [dense_text(d) for d, _ in drafts], "embedding memories")
        with self._writing() as state:
            taken = set(state.row_of)
            ops = []
            for seq, ((draft, wanted_id), vector) in enumerate(zip(drafts, vectors), start=state.next_seq):
                record = replace(draft, id=_claim_id(wanted_id, seq, draft, taken))
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
        draft, _ = _draft(item)
        draft = replace(draft, supersedes=old.id)
        vector = self.embedder.embed([dense_text(draft)])[0]
        with self._writing() as state:
            old = state.get(old.id)
            if not old.active:
                raise InputError(f"memory {old.id} was already replaced by {old.superseded_by}")
            seq = state.next_seq
            record = replace(draft, id=_claim_id(None, seq, draft, set(state.row_of)))
            op = JournalOp("supersede", record, seq=seq, vector=vector, embedding_id=self.embedding_id, old_id=old.id)
            self._append([op])
        return record

    def forget(self, id_or_prefix: str) -> MemoryRecord:
        """Remove a memory, and the earlier versions it replaced, from recall and their text from
        every file of the store: the journal, snapshot and vectors are rewritten without them,
        and backups holding them are deleted."""
        with self._writing() as state:
            record = state.get(id_or_prefix)
            gone = [record, *state.versions_before(record.id)]
            records, vectors = state.without(record.id)
            self._loaded.state = MemoryState.build(records, vectors, state.next_seq, self.embedder.dimension)
            self._compact_locked()
            for each in gone:
                self._delete_backups_holding(each)
        return record

    def forget_all(self) -> None:
        """Delete every file of the memory folder (the empty lock file stays) and start empty."""
        with self._writing():
            for path in self.paths.files():
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

    def _delete_backups_holding(self, record: MemoryRecord) -> None:
        """Backups (damaged files kept by doctor, migration originals) are not rewritten, so any
        that holds the forgotten text is deleted."""
        live = {self.paths.snapshot, self.paths.journal, self.paths.lock, self.paths.vectors(self._loaded.generation)}
        needles = _needles(record)
        for path in self.paths.files():
            if path not in live and any(needle in path.read_bytes() for needle in needles):
                path.unlink(missing_ok=True)
                notice(f"deleted {path.name}: it held the forgotten memory")


# -- helpers -------------------------------------------------------------------------------------


@contextmanager
def _os_errors_as_store_errors(paths: StorePaths) -> Iterator[None]:
    """A full disk or a permission problem becomes one StoreError line, not a traceback."""
    try:
        yield
    except OSError as exc:
        raise StoreError(f"cannot use the memory store in {paths.root}: {exc.strerror or exc}") from exc


def _as_input(check, value):  # type: ignore[no-untyped-def]
    try:
        return check(value)
    except ValueError as exc:
        raise InputError(str(exc)) from None


def _check_kinds(kinds: tuple[str, ...]) -> tuple[str, ...]:
    if isinstance(kinds, str):
        kinds = (kinds,)
    return tuple(_as_input(check_kind, kind) for kind in kinds)


def _draft(item: dict[str, Any]) -> tuple[MemoryRecord, str | None]:
    """A record without its id yet (and the id the caller asked for). InputError if invalid."""
    if not isinstance(item, dict):
        raise InputError(f"a memory to add must be a dict, got {type(item).__name__}")
    unknown = set(item) - ITEM_FIELDS
    if unknown:
        raise InputError(f"unknown field(s) for a memory: {', '.join(sorted(unknown))}")
    text, kind = item.get("text"), item.get("kind")
    if not isinstance(text, str) or not text.strip():
        raise InputError("a memory needs a non-empty text")
    kind = _as_input(check_kind, kind)
    if text_problem(kind, text):
        raise InputError(text_problem(kind, text))
    for name in ("provenance", "decision"):
        if item.get(name) is not None and not isinstance(item[name], dict):
            raise InputError(f"{name} must be a dict")
    wanted = item.get("record_id")
    if wanted is not None:
        _as_input(check_id, wanted)
    now = time.time()
    record = MemoryRecord(
        id="", kind=kind, text=text, created=now, updated=now,
        provenance=dict(item.get("provenance") or {}), decision=dict(item.get("decision") or {}),
        key=_as_input(check_key, item.get("key")),
    )
    return record, wanted


def _claim_id(wanted: str | None, seq: int, draft: MemoryRecord, taken: set[str]) -> str:
    if wanted is not None:
        if wanted in taken:
            raise InputError(f"a memory with id {wanted!r} already exists")
        ident = wanted
    else:
        ident = make_record_id(seq, draft.kind, draft.text, taken)
    taken.add(ident)
    return ident


def _needles(record: MemoryRecord) -> list[bytes]:
    """The forgotten text as it may appear in a file: raw, and JSON-escaped both ways."""
    texts = {record.text, str(record.provenance.get("source_text") or "")}
    needles = set()
    for text in filter(None, texts):
        needles.add(text.encode("utf-8"))
        needles.add(json.dumps(text, ensure_ascii=False)[1:-1].encode("utf-8"))
        needles.add(json.dumps(text)[1:-1].encode("ascii"))
    return [needle for needle in needles if needle]

