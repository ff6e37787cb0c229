"""What the ranker reads of each memory besides its scores (rerank.py): whether its words ask,
how many words it has, who said it and in which conversation, kept as columns so that ranking
a hundred candidates reads none of them.

The ranker's features were made from each candidate's record and from the record of the turn
said before it. At a million memories that was two hundred records read from memories.json per
recall (a pread, a CRC and a JSON parse each): 1.5 ms of a 9 ms recall, and more when the page
cache had let their pages go. Compaction saves these traits in the columns file
(store/columns.py), one row each; a row added or changed since is read when asked, as before.

A speaker's first name and a session are kept as 64-bit hashes (saved.label_hash): the features
only compare them for equality.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ...reading.words import WORD
from ...types import MemoryRecord
from .render import speaker_of
from .saved import label_hash
from .saved_cover import SavedCover

ASKS, ONLY_ASKS, TURN, USER, ASSISTANT = 1, 2, 4, 8, 16  # bits of `flags`
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


@dataclass(frozen=True)
class TraitColumns:
    """Aligned arrays, one row per memory."""

    flags: np.ndarray  # uint8: ASKS | ONLY_ASKS | TURN, and USER / ASSISTANT for a turn with no named speaker
    words: np.ndarray  # uint32: how many words (split on white space)
    speaker: np.ndarray  # uint64: label_hash of the first word of speaker_of, lowercase (0: none)
    session: np.ndarray  # uint64: label_hash of the provenance's session (0: none)

    @classmethod
    def of(cls, records: Sequence[MemoryRecord]) -> TraitColumns:
        """The traits of `records` (reading each one's words)."""
        traits = [_traits(record) for record in records]
        return cls(*(np.fromiter((row[field] for row in traits), dtype=dtype, count=len(traits))
                     for field, dtype in enumerate((np.uint8, np.uint32, np.uint64, np.uint64))))

    def __len__(self) -> int:
        return len(self.flags)

    def take(self, positions: np.ndarray) -> TraitColumns:
        return TraitColumns(self.flags[positions], self.words[positions], self.speaker[positions],
                            self.session[positions])

    def has(self, bit: int) -> np.ndarray:
        return (self.flags & bit) != 0


def _traits(record: MemoryRecord) -> tuple[int, int, int, int]:
    flags = (ASKS if asks(record.text) else 0) | (ONLY_ASKS if only_asks(record.text) else 0)
    speaker = 0
    if record.kind == "turn":
        flags |= TURN
        first = speaker_of(record).lower().split()
        speaker = label_hash(first[0]) if first else 0
        if not record.provenance.speaker:
            role = (record.provenance.role or "").lower()
            flags |= USER if role == "user" else ASSISTANT if role == "assistant" else 0
    session = record.provenance.session
    return flags, len(record.text.split()), speaker, label_hash(session) if session else 0


def asks(text: str) -> bool:
    """Whether a message ends by asking something."""
    return text.rstrip().endswith("?")


def only_asks(text: str) -> bool:
    """Whether every sentence of a message asks, or only greets ("Hey! How are you?")."""
    sentences = [s for s in _SENTENCE_END.split(text.strip()) if s]
    return bool(sentences) and all(s.rstrip().endswith("?") or len(WORD.findall(s)) <= 3 for s in sentences)


class Traits:
    """Each memory's traits: from the saved columns where they hold, else read from its record
    once (kept until the record changes)."""

    def __init__(self, saved: TraitColumns | None = None) -> None:
        self._saved = saved
        self._cover = SavedCover(len(saved) if saved is not None else 0)
        self._read: dict[int, tuple[int, int, int, int]] = {}  # rows the columns do not describe

    def refresh(self, row: int) -> None:
        """A record replaced in place: its traits are read again when asked."""
        self._cover.refresh(row)
        self._read.pop(row, None)

    def of(self, records: Sequence[MemoryRecord], rows: np.ndarray) -> TraitColumns:
        """The traits of `rows` (in their order)."""
        rows = np.asarray(rows, dtype=np.int64)
        covered = self._cover.covers(rows)
        if self._saved is not None and covered.all():
            return self._saved.take(rows)
        found = self._saved.take(np.where(covered, rows, 0)) if self._saved is not None and len(self._saved) \
            else _empty(len(rows))
        for position in np.flatnonzero(~covered).tolist():  # added or changed since the snapshot
            row = int(rows[position])
            traits = self._read.get(row)
            if traits is None:
                traits = self._read[row] = _traits(records[row])
            found.flags[position], found.words[position], found.speaker[position], found.session[position] = traits
        return found


def _empty(count: int) -> TraitColumns:
    return TraitColumns(np.zeros(count, np.uint8), np.zeros(count, np.uint32), np.zeros(count, np.uint64),
                        np.zeros(count, np.uint64))
