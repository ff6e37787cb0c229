"""The in-memory state a store searches: records in order, the dense and lexical indexes over
them, and the lookups (id, id prefix, key). It never touches files; the store applies its
journal's operations to it (store/replay.py)."""

from __future__ import annotations

from collections import deque
from dataclasses import replace

import numpy as np

from ...errors import NotFoundError
from ...types import MemoryRecord
from .lexical import LexicalIndex
from .render import context_session, lexical_text
from .time_boost import SaidTimes
from .vectors import DenseIndex

MIN_PREFIX = 4  # characters of an id that may stand for it
CONTEXT_TURNS = 2  # a turn is indexed with up to this many earlier turns of its session


class MemoryState:
    def __init__(self, dimension: int, next_seq: int = 0) -> None:
        self.records: list[MemoryRecord] = []
        self.row_of: dict[str, int] = {}
        self.dense = DenseIndex(dimension)
        self.lexical = LexicalIndex()
        self.next_seq = next_seq  # the sequence number the next new record gets
        self.journal_ops = 0  # journal operations applied since the snapshot
        self._by_key: dict[tuple[str, str], str] = {}
        self._recent_turns: dict[str, deque[int]] = {}
        self._said = SaidTimes()
        self._neighbours = np.zeros((2, 0), dtype=np.int64)  # before and after, with room to grow
        self._linked = 0  # rows linked so far

    @classmethod
    def build(cls, records: list[MemoryRecord], vectors: np.ndarray, next_seq: int, dimension: int,
              lexical: LexicalIndex | None = None) -> MemoryState:
        """A state over `records`; `lexical`, when given, is a saved index of exactly them."""
        state = cls(dimension, next_seq)
        if lexical is not None:
            state.lexical = lexical
        state.add(records, vectors, index_text=lexical is None)
        return state

    # -- lookups ---------------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.records)

    def get(self, id_or_prefix: str) -> MemoryRecord:
        """By id, or by a unique prefix of at least MIN_PREFIX characters."""
        ident = (id_or_prefix or "").strip()
        if ident in self.row_of:
            return self.records[self.row_of[ident]]
        if len(ident) < MIN_PREFIX:
            raise NotFoundError(f"no memory with id {ident!r} (give at least {MIN_PREFIX} characters of an id)")
        matches = [record for record in self.records if record.id.startswith(ident)]
        if not matches:
            raise NotFoundError(f"no memory with id {ident!r}")
        if len(matches) > 1:
            raise NotFoundError(f"{ident!r} matches {len(matches)} memories; give more characters")
        return matches[0]

    def by_key(self, key: tuple[str, str]) -> MemoryRecord | None:
        ident = self._by_key.get(_norm_key(key))
        return self.records[self.row_of[ident]] if ident else None

    @property
    def before(self) -> np.ndarray:
        """The row of the turn said just before each row in its session (-1: none), for the
        ranker's neighbour features (rerank.py)."""
        return self._neighbours[0, : self._linked]

    @property
    def after(self) -> np.ndarray:
        """The row of the turn said just after each row in its session (-1: none)."""
        return self._neighbours[1, : self._linked]

    def said_times(self) -> SaidTimes:
        """When each row was said, for dated questions (read on first need, then as rows come)."""
        return self._said.cover(self.records)

    def vectors_of(self, records: list[MemoryRecord]) -> np.ndarray:
        return self.dense.vectors([self.row_of[record.id] for record in records])

    # -- changes ---------------------------------------------------------------------------------
    def add(self, records: list[MemoryRecord], vectors: np.ndarray, *, index_text: bool = True) -> None:
        """Append records with their vectors (one row each, in order); `index_text` False when
        the lexical index already holds them. (One pass, few calls per record: opening a
        large store adds every record here.)"""
        if len(records) != len(vectors):
            raise ValueError("records and vectors differ in length")
        start = len(self.records)
        self.records.extend(records)
        self.row_of.update(zip([r.id for r in records], range(start, start + len(records))))
        contexts: list[tuple[int, ...]] = []
        for row, record in enumerate(records, start):
            if record.kind == "turn":
                contexts.append(self._context_for(record, row))
            else:
                contexts.append(())
                if record.key is not None:
                    self._index_key(record)
        self.dense.add(vectors, [r.kind for r in records], [r.superseded_by is None for r in records])
        self._link_neighbours(contexts)
        if index_text:
            self.lexical.add([lexical_text(r) for r in records], contexts)

    def update(self, record: MemoryRecord) -> None:
        """Replace a record's metadata (its text and vector stay)."""
        row = self.row_of[record.id]
        self.records[row] = record
        self.dense.set_active(row, record.active)
        self._said.refresh(row, record)
        self._index_key(record)

    def without(self, *record_ids: str) -> tuple[list[MemoryRecord], np.ndarray, np.ndarray]:
        """Records, vectors and the rows they were at, as if `record_ids` and the earlier
        versions they replaced had never been stored: forgetting a corrected memory never
        brings the old text back. A newer version that replaced one stays, and now replaces
        nothing."""
        gone = {ident for record_id in record_ids for ident in self.versions_of(record_id)}
        kept_rows = [row for row, record in enumerate(self.records) if record.id not in gone]
        records = []
        for row in kept_rows:
            record = self.records[row]
            if record.supersedes in gone:
                record = replace(record, supersedes=None)
            records.append(record)
        return records, self.dense.vectors(kept_rows), np.asarray(kept_rows, dtype=np.int64)

    def versions_of(self, record_id: str) -> list[str]:
        """`record_id` and the ids of the records it replaced."""
        return [record_id, *(record.id for record in self.versions_before(record_id))]

    def versions_before(self, record_id: str) -> list[MemoryRecord]:
        """The records `record_id` replaced, newest first."""
        chain: list[MemoryRecord] = []
        current = self.records[self.row_of[record_id]]
        while current.supersedes in self.row_of and all(r.id != current.supersedes for r in chain):
            current = self.records[self.row_of[current.supersedes]]
            chain.append(current)
        return chain

    # -- helpers ---------------------------------------------------------------------------------
    def _link_neighbours(self, contexts: list[tuple[int, ...]]) -> None:
        """Extend `before` and `after` with new rows whose contexts (nearest first) are given."""
        before = np.asarray([context[0] if context else -1 for context in contexts], dtype=np.int64)
        start, stop = self._linked, self._linked + len(before)
        if stop > self._neighbours.shape[1]:  # grown by doubling: one turn at a time stays cheap
            grown = np.full((2, max(stop, 2 * self._neighbours.shape[1], 64)), -1, dtype=np.int64)
            grown[:, :start] = self._neighbours[:, :start]
            self._neighbours = grown
        self._neighbours[0, start:stop] = before
        self._neighbours[1, start:stop] = -1
        linked = np.flatnonzero(before >= 0)
        self._neighbours[1, before[linked]] = linked + start
        self._linked = stop

    def _context_for(self, record: MemoryRecord, row: int) -> tuple[int, ...]:
        session = context_session(record)
        if session is None:
            return ()
        recent = self._recent_turns.setdefault(session, deque(maxlen=CONTEXT_TURNS))
        context = tuple(reversed(recent))  # nearest first
        recent.append(row)
        return context

    def _index_key(self, record: MemoryRecord) -> None:
        if record.key is None or record.kind != "fact":
            return
        key = _norm_key(record.key)
        if record.active:
            self._by_key[key] = record.id
        elif self._by_key.get(key) == record.id:
            del self._by_key[key]


def _norm_key(key: tuple[str, str]) -> tuple[str, str]:
    return (key[0].strip().lower(), key[1].strip().lower())

