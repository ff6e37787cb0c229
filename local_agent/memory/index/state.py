"""The in-memory state a store searches: records in order, the dense and lexical indexes over
them, and the lookups (id, id prefix, key). It never touches files; the store applies its
journal's operations to it (store/replay.py).

A state opened from a snapshot with its columns (`SavedRows`, store/columns.py) reads no record
to open: the indexes come from files, the kinds and active flags from columns, and a record is
read from disk when it is shown, recalled or changed. What changes since lives in memory: the
records added (`Records`), the ones replaced in place, and the ids, keys and conversations
they touch.
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from typing import overload

import numpy as np

from ...errors import NotFoundError
from ...types import MEMORY_KINDS, MemoryRecord
from .lexical import LexicalIndex
from .mention_times import MentionTimes
from .render import context_session, lexical_text
from .said_times import SaidTimes
from .saved import SavedRows, norm_key
from .time_boost import new_mention_times, new_said_times
from .traits import Traits
from .vectors import DenseIndex

MIN_PREFIX = 4  # characters of an id that may stand for it
CONTEXT_TURNS = 2  # a turn is indexed with up to this many earlier turns of its session


class Records(Sequence[MemoryRecord]):
    """The records in row order: a snapshot's (read from disk at each access, or kept in
    memory once replaced in place), then the ones added since."""

    def __init__(self, saved: SavedRows | None = None) -> None:
        self.saved = saved
        self.saved_count = len(saved) if saved is not None else 0
        self.changed: dict[int, MemoryRecord] = {}  # snapshot rows replaced since
        self._added: list[MemoryRecord] = []

    def __len__(self) -> int:
        return self.saved_count + len(self._added)

    @overload
    def __getitem__(self, row: int) -> MemoryRecord: ...

    @overload
    def __getitem__(self, row: slice) -> list[MemoryRecord]: ...

    def __getitem__(self, row: int | slice) -> MemoryRecord | list[MemoryRecord]:
        if isinstance(row, slice):
            return [self[index] for index in range(*row.indices(len(self)))]
        row = int(row)
        if row < 0:
            row += len(self)
        if row >= self.saved_count:
            return self._added[row - self.saved_count]
        if row < 0 or self.saved is None:
            raise IndexError("row out of range")
        changed = self.changed.get(row)
        return changed if changed is not None else self.saved.record(row)

    def __setitem__(self, row: int, record: MemoryRecord) -> None:
        if row >= self.saved_count:
            self._added[row - self.saved_count] = record
        else:
            self.changed[row] = record

    def __iter__(self) -> Iterator[MemoryRecord]:
        for row in range(len(self)):
            yield self[row]

    def extend(self, records: Iterable[MemoryRecord]) -> None:
        self._added.extend(records)


class RowIndex(Mapping[str, int]):
    """Record id -> row: the snapshot's ids through its columns, then the ids added since."""

    def __init__(self, saved: SavedRows | None = None) -> None:
        self._saved = saved
        self._added: dict[str, int] = {}

    def __getitem__(self, ident: str) -> int:
        row = self._added.get(ident)
        if row is None and self._saved is not None and isinstance(ident, str):
            row = self._saved.find(ident)
        if row is None:
            raise KeyError(ident)
        return row

    def __contains__(self, ident: object) -> bool:
        return isinstance(ident, str) and (ident in self._added or (self._saved is not None
                                                                     and self._saved.find(ident) is not None))

    def __iter__(self) -> Iterator[str]:
        if self._saved is not None:
            yield from (self._saved.record(row).id for row in range(len(self._saved)))
        yield from self._added

    def __len__(self) -> int:
        return (len(self._saved) if self._saved is not None else 0) + len(self._added)

    def add(self, ids: Iterable[str], start: int) -> None:
        self._added.update(zip(ids, itertools.count(start)))

    def with_prefix(self, prefix: str) -> list[int]:
        found = self._saved.with_prefix(prefix) if self._saved is not None else []
        return found + [row for ident, row in self._added.items() if ident.startswith(prefix)]


class MemoryState:
    def __init__(self, dimension: int, next_seq: int = 0, saved: SavedRows | None = None) -> None:
        self.records = Records(saved)
        self.row_of = RowIndex(saved)
        self.dense = DenseIndex(dimension)
        self.lexical = LexicalIndex()
        self.next_seq = next_seq  # the sequence number the next new record gets
        self.journal_ops = 0  # journal operations applied since the snapshot
        self._saved = saved
        self._by_key: dict[tuple[str, str], str | None] = {}  # keys set (or cleared: None) since the snapshot
        self._recent_turns: dict[str, deque[int]] = {}
        self._said = new_said_times(saved.said if saved is not None else None)
        self.mentions: MentionTimes = new_mention_times(saved.mentions if saved is not None else None)
        self.traits = Traits(saved.traits if saved is not None else None)  # what the ranker reads (traits.py)
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

    @classmethod
    def from_saved(cls, saved: SavedRows, vectors: np.ndarray, next_seq: int, dimension: int,
                   lexical: LexicalIndex | None = None) -> MemoryState:
        """A state over a snapshot's records, none of them read; `lexical`, when given, is a
        saved index of exactly them (else every record is read to index it)."""
        state = cls(dimension, next_seq, saved)
        state.dense.add_coded(vectors, saved.kinds, saved.active)
        if lexical is None:
            lexical = LexicalIndex()
            records = list(state.records)
            contexts = turn_contexts(records)
            lexical.add([lexical_text(r) for r in records], contexts)
            state._link_neighbours(contexts)
        else:
            state._link_saved(saved.turn_before)
        state.lexical = lexical
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
        matches = self.row_of.with_prefix(ident)
        if not matches:
            raise NotFoundError(f"no memory with id {ident!r}")
        if len(matches) > 1:
            raise NotFoundError(f"{ident!r} matches {len(matches)} memories; give more characters")
        return self.records[matches[0]]

    def select(self, kinds: tuple[str, ...] = MEMORY_KINDS, *, include_inactive: bool = False) -> list[MemoryRecord]:
        """Records of `kinds` in row order, superseded ones only on request (only these are read)."""
        rows = np.flatnonzero(self.dense.of_kinds(kinds, include_inactive=include_inactive))
        return [self.records[row] for row in rows.tolist()]

    def counts(self) -> dict[str, int]:
        """How many records there are of each kind, and how many are active (no record read)."""
        found = {"records": len(self), "active": int(self.dense.allowed(MEMORY_KINDS).sum())}
        return found | {kind: int(self.dense.allowed((kind,)).sum()) for kind in MEMORY_KINDS}

    def by_key(self, key: tuple[str, str]) -> MemoryRecord | None:
        ident = self._current_key(norm_key(key))
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
        """When each row was said, for dated questions (rows added since the snapshot are read
        on first need, then as they come)."""
        return self._said.cover(self.records)

    def vectors_of(self, records: list[MemoryRecord]) -> np.ndarray:
        return self.dense.vectors([self.row_of[record.id] for record in records])

    # -- changes ---------------------------------------------------------------------------------
    def add(self, records: list[MemoryRecord], vectors: np.ndarray, *, index_text: bool = True) -> None:
        """Append records with their vectors (one row each, in order); `index_text` False when
        the lexical index already holds them. (One pass, few calls per record: building a
        large store adds every record here.)"""
        if len(records) != len(vectors):
            raise ValueError("records and vectors differ in length")
        start = len(self.records)
        self.records.extend(records)
        self.row_of.add([r.id for r in records], start)
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
        self.mentions.refresh(row)
        self.traits.refresh(row)
        self._index_key(record)

    def without(self, *record_ids: str) -> tuple[list[MemoryRecord], np.ndarray, np.ndarray]:
        """Records, vectors and the rows they were at, as if `record_ids` and the earlier
        versions they replaced had never been stored: forgetting a corrected memory never
        brings the old text back. A newer version that replaced one stays, and now replaces
        nothing."""
        gone = {ident for record_id in record_ids for ident in self.versions_of(record_id)}
        gone_rows = {self.row_of[ident] for ident in gone}
        kept_rows = [row for row in range(len(self)) if row not in gone_rows]
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
        while (before := current.supersedes) is not None and before in self.row_of \
                and all(r.id != before for r in chain):
            current = self.records[self.row_of[before]]
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

    def _link_saved(self, before: np.ndarray) -> None:
        """Link the snapshot's rows, whose turns' earlier turns the columns name (-1: none)."""
        self._neighbours = np.full((2, len(before)), -1, dtype=np.int64)
        self._neighbours[0] = before
        linked = np.flatnonzero(self._neighbours[0] >= 0)
        self._neighbours[1, self._neighbours[0, linked]] = linked
        self._linked = len(before)

    def _context_for(self, record: MemoryRecord, row: int) -> tuple[int, ...]:
        session = context_session(record)
        if session is None:
            return ()
        recent = self._recent_turns.get(session)
        if recent is None:
            recent = self._recent_turns[session] = deque(self._saved_turns(session), maxlen=CONTEXT_TURNS)
        context = tuple(reversed(recent))  # nearest first
        recent.append(row)
        return context

    def _saved_turns(self, session: str) -> list[int]:
        """The snapshot's last turns of `session` (oldest first)."""
        if self._saved is None:
            return []
        return [row for row in self._saved.last_turns(session) if context_session(self.records[row]) == session]

    def _current_key(self, key: tuple[str, str]) -> str | None:
        """The id of the active fact `key` (normalized) points to: as set since the snapshot,
        else as the snapshot left it."""
        if key in self._by_key or self._saved is None:
            return self._by_key.get(key)
        for row in self._saved.keyed(key):
            record = self._saved.record(row)
            if record.key is not None and norm_key(record.key) == key:
                return record.id
        return None

    def _index_key(self, record: MemoryRecord) -> None:
        if record.key is None or record.kind != "fact":
            return
        key = norm_key(record.key)
        if record.active:
            self._by_key[key] = record.id
        elif self._current_key(key) == record.id:
            self._by_key[key] = None


def turn_contexts(records: Sequence[MemoryRecord]) -> list[tuple[int, ...]]:
    """For each record, the rows of the earlier turns of its conversation that join its lexical
    document (nearest first; none for a record that is not a turn)."""
    recent: dict[str, deque[int]] = {}
    contexts: list[tuple[int, ...]] = []
    for row, record in enumerate(records):
        session = context_session(record)
        if session is None:
            contexts.append(())
            continue
        turns = recent.setdefault(session, deque(maxlen=CONTEXT_TURNS))
        contexts.append(tuple(reversed(turns)))
        turns.append(row)
    return contexts
