"""The per-row columns of a snapshot's records (columns.py saves them with what is derived from
them): id, kind, whether active, when said, hashes of the key and conversation, what the
memory's words name and what the ranker reads; and the tables, per key or conversation hash,
of the rows that last pointed to it."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ...types import MemoryRecord
from ..index.render import context_session
from ..index.saved import key_label, label_hash
from ..index.time_boost import mention_columns, said_span
from ..index.traits import TraitColumns
from ..index.vectors import KIND_CODES


@dataclass
class RowColumns:
    """The per-row columns, as arrays in row order."""

    ids: np.ndarray  # bytes (numpy S): the id in UTF-8
    kinds: np.ndarray  # int8
    active: np.ndarray  # bool
    key_hash: np.ndarray  # uint64: label_hash of a fact's key, 0 without one
    session_hash: np.ndarray  # uint64: label_hash of a turn's conversation, 0 for other records
    said_start: np.ndarray  # float64
    said_end: np.ndarray  # float64
    mention_start: np.ndarray  # float64 (rows, MENTION_SLOTS): what the words name (mention_times.py)
    mention_end: np.ndarray  # float64 (rows, MENTION_SLOTS)
    mention_more: np.ndarray  # bool
    trait_flags: np.ndarray  # uint8: what the ranker reads of each memory (index/traits.py)
    trait_words: np.ndarray  # uint32
    trait_speaker: np.ndarray  # uint64
    trait_session: np.ndarray  # uint64

    @classmethod
    def of(cls, records: Sequence[MemoryRecord]) -> RowColumns:
        """The columns of `records` (reading each)."""
        said = [said_span(record) for record in records]
        mentions = mention_columns(records)
        traits = TraitColumns.of(records)
        return cls(
            ids=np.array([record.id.encode("utf-8", "surrogatepass") for record in records], dtype=np.bytes_),
            kinds=np.fromiter((KIND_CODES[record.kind] for record in records), dtype=np.int8, count=len(records)),
            active=np.fromiter((record.superseded_by is None for record in records), dtype=bool, count=len(records)),
            key_hash=np.fromiter((_key_hash(record) for record in records), dtype=np.uint64, count=len(records)),
            session_hash=np.fromiter((_session_hash(record) for record in records), dtype=np.uint64,
                                     count=len(records)),
            said_start=np.fromiter((start for start, _ in said), dtype=np.float64, count=len(records)),
            said_end=np.fromiter((end for _, end in said), dtype=np.float64, count=len(records)),
            mention_start=mentions.start, mention_end=mentions.end, mention_more=mentions.more,
            trait_flags=traits.flags, trait_words=traits.words, trait_speaker=traits.speaker,
            trait_session=traits.session,
        )

    def replaced(self, rows: np.ndarray, other: RowColumns) -> RowColumns:
        """These columns with `rows` taken from `other` (one row of it each, in order)."""
        merged = RowColumns(**{name: np.array(getattr(self, name)) for name in ROW_FIELDS})
        if len(rows):
            merged.ids = merged.ids.astype(np.result_type(merged.ids, other.ids))
            for name in ROW_FIELDS:
                getattr(merged, name)[rows] = getattr(other, name)
        return merged

    def then(self, other: RowColumns) -> RowColumns:
        """These columns followed by `other`'s rows."""
        return RowColumns(**{name: np.concatenate([getattr(self, name), getattr(other, name)])
                             for name in ROW_FIELDS})

    def ids_sha256(self) -> str:
        """The checksum of the ids in row order (snapshot.ids_checksum of the same ids)."""
        return hashlib.sha256(b"\n".join(self.ids.tolist())).hexdigest()


ROW_FIELDS = ("ids", "kinds", "active", "key_hash", "session_hash", "said_start", "said_end", "mention_start",
              "mention_end", "mention_more", "trait_flags", "trait_words", "trait_speaker", "trait_session")
COPIED_FIELDS = ROW_FIELDS[7:]  # saved as they are (the others are sorted or indexed too)


def _key_hash(record: MemoryRecord) -> int:
    return label_hash(key_label(record.key)) if record.key is not None and record.kind == "fact" else 0


def _session_hash(record: MemoryRecord) -> int:
    session = context_session(record)
    return label_hash(session) if session is not None else 0


def last_per_hash(hashes: np.ndarray, rows: np.ndarray, keep: int) -> tuple[np.ndarray, np.ndarray]:
    """For each distinct hash among `rows`: the hash (sorted) and its last `keep` rows (oldest
    first, -1 where it has fewer)."""
    order = rows[np.lexsort((rows, hashes[rows]))]  # by hash, then row
    sorted_hashes = hashes[order]
    ends = np.flatnonzero(np.append(sorted_hashes[1:] != sorted_hashes[:-1], True)) if len(order) else order
    starts = np.concatenate([[0], ends[:-1] + 1]) if len(ends) else ends
    table = np.full((len(ends), keep), -1, dtype=np.int32)
    for back in range(keep):  # back 0: the last row; 1: the one before (when the group has it)
        has = ends - back >= starts
        table[has, keep - 1 - back] = order[ends[has] - back]
    return sorted_hashes[ends].astype(np.uint64), table


def previous_per_hash(hashes: np.ndarray, rows: np.ndarray, count: int) -> np.ndarray:
    """For each of `count` rows: the row before it among `rows` with the same hash (-1: none),
    i.e. the turn said just before it in its conversation (the ranker's neighbour)."""
    before = np.full(count, -1, dtype=np.int32)
    order = rows[np.lexsort((rows, hashes[rows]))]  # by hash, then row
    same = np.flatnonzero(hashes[order][1:] == hashes[order][:-1])
    before[order[same + 1]] = order[same]
    return before
