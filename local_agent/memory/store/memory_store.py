"""The long-term memory store: records with vectors, a journal, snapshots, and hybrid recall.

Files and their crash safety are described in layout.py, journal.py, snapshot.py and
compaction.py; keeping up with other processes that share the data dir, in sync.py. Writes take
a file lock, held only for the write. Scores follow one convention: higher means closer (see
index/recall.py).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from ...errors import InputError, StoreBusyError
from ...process.files import refuse_odd_file
from ...types import MemoryDraft, MemoryKind, MemoryRecord, Provenance, RecallHit
from ..index import recall as recall_module
from ..index import time_boost
from ..index.embedder import TextEmbedder, embed_with_progress
from ..index.render import dense_text, embedding_id
from ..index.state import MemoryState
from .datadir import claim_data_dir
from .drafts import as_input, check_kinds, claim_id, draft_record, new_draft
from .forgetting import Origin, delete_copies_holding, origin_of, state_without
from .journal import JournalOp
from .layout import LOCK_NAME, StorePaths, os_errors_as_store_errors
from .records import KINDS, check_key, check_kind
from .sync import JournalSync
from .transfer import check_links, export_bytes, read_export, refuse_store_folders, write_private_file

log = logging.getLogger(__name__)


class MemoryStore:
    """Open with `MemoryStore.open(data_dir, embedder)`; close with `close()` (or `with`)."""

    def __init__(self, paths: StorePaths, embedder: TextEmbedder, lock_timeout: float) -> None:
        self.paths = paths
        self.embedder = embedder
        self.lock_timeout = lock_timeout
        self.embedding_id = embedding_id(embedder.model_id)
        self._files = JournalSync(paths, embedder, self.embedding_id, lock_timeout)
        self._mutex = threading.RLock()

    @classmethod
    def open(cls, data_dir: Path, embedder: TextEmbedder, *, lock_timeout: float = 5.0) -> MemoryStore:
        """Open (creating if needed) the store in `data_dir`/memory. Raises StoreCorruptError
        naming a damaged file, DataDirError for a folder local-agent did not make, or a link,
        FIFO or device in the store, StoreError when the folder cannot be read or created."""
        if lock_timeout < 0:
            raise ValueError("lock_timeout must be 0 or more seconds")
        paths = StorePaths.for_data_dir(claim_data_dir(Path(data_dir)))
        store = cls(paths, embedder, lock_timeout)
        with store._mutex, os_errors_as_store_errors(paths):
            paths.create()
            for path in paths.root.iterdir():
                with contextlib.suppress(FileNotFoundError):  # another writer's temp file, renamed meanwhile
                    refuse_odd_file(path)
            store._files.load()
            if store._files.view.needs_persist:
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
            return state.select(KINDS if kind is None else (kind,), include_inactive=include_inactive)

    def find_by_key(self, key: tuple[str, str]) -> MemoryRecord | None:
        """The active fact with this (subject, attribute) key, if any (case-insensitive)."""
        checked = as_input(check_key, key)
        with self._reading() as state:
            return state.by_key(checked) if checked else None

    def recall(
        self, query: str, k: int = 6, *, kinds: tuple[str, ...] = ("fact", "turn", "digest"),
        min_score: float | None = None, today: dt.datetime | None = None,
    ) -> list[RecallHit]:
        """The k memories closest to `query` (hybrid dense + BM25, see recall.py), best first.
        `min_score` None uses the product default threshold; with `today`, dates in the query
        (read relative to it) lift the memories of those days."""
        kinds = check_kinds(kinds)
        if k <= 0 or not query.strip():
            return []
        with self._reading() as state:
            if not state.dense.allowed(kinds).any():  # (the cached filter, not a pass over the records)
                return []  # nothing to find: don't load the embedding model for it
        vector = self.embedder.embed([time_boost.topic_of(query, today)])[0]
        threshold = recall_module.DEFAULT_MIN_SCORE if min_score is None else min_score
        with self._reading() as state:
            return recall_module.hybrid_recall(state, query, vector, k=k, kinds=kinds, min_score=threshold,
                                               today=today)

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
            counts = state.counts()
            files = {path.name: path.stat().st_size for path in self.paths.files()}
            return {
                "records": counts["records"],
                "active": counts["active"],
                "superseded": counts["records"] - counts["active"],
                "by_kind": {kind: counts[kind] for kind in KINDS},
                "generation": self._files.view.generation,
                "journal_operations": state.journal_ops,
                "embedding": self.embedding_id,
                "folder": str(self.paths.root),
                "files": files,
                "bytes": sum(files.values()),
            }

    def origin(self, id_or_prefix: str) -> Origin:
        """A memory with the messages it was made from and the turn memories that hold them."""
        with self._reading() as state:
            return origin_of(state, state.get(id_or_prefix))

    def export(self, path: Path) -> int:
        """Write every record (superseded ones too) to a JSON file; returns how many. InputError
        for a path inside the data dir's own folders."""
        refuse_store_folders(Path(path), self.paths.root.parent)
        with self._reading() as state:
            records = list(state.records)
        write_private_file(Path(path), export_bytes(records, self.embedding_id))
        return len(records)

    # -- writing ---------------------------------------------------------------------------------
    def add(self, text: str, kind: MemoryKind, *, provenance: Provenance | None = None,
            decision: Mapping[str, Any] | None = None, key: tuple[str, str] | None = None,
            record_id: str | None = None) -> MemoryRecord:
        """Store one memory (see add_many)."""
        return self.add_many([new_draft(text, kind, provenance, decision, key, record_id)])[0]

    def add_many(self, drafts: Sequence[MemoryDraft]) -> list[MemoryRecord]:
        """Store several memories with one embedding batch, one lock and one journal write.
        InputError for an invalid draft (nothing is stored then)."""
        records = [(draft_record(draft), draft.record_id) for draft in drafts]
        if not records:
            return []
        vectors = embed_with_progress(self.embedder, [dense_text(r) for r, _ in records], "embedding memories")
        with self._writing() as state:
            claimed: set[str] = set()
            ops = []
            for seq, ((draft, wanted_id), vector) in enumerate(zip(records, vectors), start=state.next_seq):
                record = replace(draft, id=claim_id(wanted_id, seq, draft, state.row_of, claimed))
                ops.append(JournalOp("add", record, seq=seq, vector=vector, embedding_id=self.embedding_id))
            self._files.append(ops)
        return [op.record for op in ops]

    def touch(self, record_id: str, *, provenance: Provenance | None = None) -> MemoryRecord:
        """Note that a memory was said again: refresh `updated`, count it in provenance `seen`
        and keep the latest mention's provenance as `last_seen`."""
        if provenance is not None and not isinstance(provenance, Provenance):
            raise InputError(f"provenance must be a Provenance, got {type(provenance).__name__}")
        with self._writing() as state:
            record = state.get(record_id)
            updated = replace(record, updated=time.time(), provenance=record.provenance.said_again(provenance))
            self._files.append([JournalOp("update", updated)])
        return updated

    def supersede(self, old_id: str, text: str, *, provenance: Provenance | None = None,
                  decision: Mapping[str, Any] | None = None, key: tuple[str, str] | None = None) -> MemoryRecord:
        """Store `text` as the new version of `old_id`. The old record keeps its text, points to
        the new one with `superseded_by` and leaves recall."""
        old = self.get(old_id)
        draft = draft_record(new_draft(text, old.kind, provenance, decision, key or old.key, None))
        draft = replace(draft, supersedes=old.id)
        vector = self.embedder.embed([dense_text(draft)])[0]
        with self._writing() as state:
            old = state.get(old.id)
            if not old.active:
                raise InputError(f"memory {old.id} was already replaced by {old.superseded_by}")
            seq = state.next_seq
            record = replace(draft, id=claim_id(None, seq, draft, state.row_of, set()))
            op = JournalOp("supersede", record, seq=seq, vector=vector, embedding_id=self.embedding_id, old_id=old.id)
            self._files.append([op])
        return record

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
        transcripts are not the store's: see MemoryService.forget in memory/service.py.)"""
        with self._writing() as state:
            origin = origin_of(state, state.get(id_or_prefix))
            self._forget_locked(state, [origin.record.id, *(turn.id for turn in origin.turns)], keep_source=False)
        return origin

    def forget_all(self) -> None:
        """Delete every file local-agent made in the memory folder (the empty lock file stays;
        files it did not make are left alone) and start empty."""
        with self._writing():
            for path in self.paths.own_files():
                if path.name != LOCK_NAME:
                    path.unlink(missing_ok=True)
            self._files.replace_state(MemoryState(self.embedder.dimension))

    def import_file(self, path: Path, *, refresh: bool = False) -> int:
        """Add the records of an export file (validated first, their version links against the
        store too; InputError if it is bad). Records whose id is already stored are skipped;
        with `refresh` they take the file's state instead when it differs (a copy of this store
        that touched or superseded them: `batch --ray` writes a namespace back this way), and a
        stored id with another text is an InputError. Returns how many records were added or
        changed."""
        records = read_export(Path(path))
        with self._reading() as state:
            stored = {record.id: record.superseded_by for record in state.records}
            changed = [r for r in records if refresh and r.id in state.row_of and state.get(r.id) != r]
            _refuse_new_texts(Path(path), changed, state)
            stored.update({record.id: record.superseded_by for record in changed})
            check_links(Path(path), records, stored)
            records = [record for record in records if record.id not in state.row_of]
        vectors = embed_with_progress(self.embedder, [dense_text(r) for r in records], "embedding imported memories")
        with self._writing() as state:
            fresh = [(r, v) for r, v in zip(records, vectors) if r.id not in state.row_of]
            ops = [
                JournalOp("add", record, seq=seq, vector=vector, embedding_id=self.embedding_id)
                for seq, (record, vector) in enumerate(fresh, start=state.next_seq)
            ]
            # after the adds: a refreshed record may point to one of them as its successor
            ops += [JournalOp("update", r) for r in changed if r.id in state.row_of and state.get(r.id) != r]
            self._files.append(ops)
        return len(ops)

    def compact(self) -> None:
        """Fold the journal into a new snapshot now (it also happens on its own)."""
        with self._writing():
            self._files.compact()

    def close(self) -> None:
        """Drop the in-memory indexes. Safe to call twice."""
        with self._mutex:
            self._files.close()

    def __enter__(self) -> MemoryStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- internals -------------------------------------------------------------------------------
    @contextmanager
    def _reading(self) -> Iterator[MemoryState]:
        with self._mutex:
            self._files.catch_up()
            yield self._files.state

    @contextmanager
    def _writing(self) -> Iterator[MemoryState]:
        with self._mutex, os_errors_as_store_errors(self.paths):
            self._files.check_open()  # before the lock is taken
            with self._files.locked():
                self._files.catch_up()
                self._files.prepare_journal()
                yield self._files.state
                self._files.compact_if_due()

    def _persist_rebuilt(self) -> None:
        try:
            with self._writing():
                pass  # _writing compacts because needs_persist is set
        except StoreBusyError:
            log.warning("could not save the rebuilt vectors now (another process is writing); "
                        "they will be rebuilt again next time")

    def _forget_locked(self, state: MemoryState, ids: list[str], *, keep_source: bool) -> None:
        """Rewrite the store without `ids` (and the versions they replaced) and with their words
        scrubbed from the records kept; then delete kept copies holding them."""
        kept, texts = state_without(state, ids, keep_source=keep_source)
        self._files.replace_state(kept)
        delete_copies_holding(self.paths, texts)



def _refuse_new_texts(path: Path, changed: list[MemoryRecord], state: MemoryState) -> None:
    """A refresh changes what is known about a memory, never its words (or its vector)."""
    for record in changed:
        if state.get(record.id).text != record.text:
            raise InputError(f"{path}: record {record.id} is stored with another text; "
                             "an import cannot change a memory's words")
