"""The times each memory's own words name ("I held a benefit game last week", said on 8 January:
the week of 1 January), kept so that a dated question does not read them again.

time_boost.py lifts a memory whose words name a time within the question's span. Reading those
words takes the date phrases' patterns and the date library (0.2-0.7 ms a memory that holds a
date word), and a dated question weighs a hundred candidates or more: at a million memories that
was most of a dated recall. So the spans are read once, when compaction writes the columns file
(store/columns.py), MENTION_SLOTS of them a memory, and a memory whose words name more, or one
added or changed since, is read again when asked (as before).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ...types import MemoryRecord
from .said_times import Span
from .saved_cover import SavedCover

MENTION_SLOTS = 2  # spans kept per memory; one with more is read again when asked


@dataclass(frozen=True)
class MentionColumns:
    """The spans the snapshot's memories name, as compaction saved them (read-only arrays)."""

    start: np.ndarray  # float64 (rows, MENTION_SLOTS): seconds since 1970, NaN for an empty slot
    end: np.ndarray  # float64, likewise
    more: np.ndarray  # bool per row: the words name more spans than the slots hold

    @classmethod
    def of(cls, spans: Sequence[Sequence[Span]]) -> MentionColumns:
        """The columns of each row's spans."""
        start = np.full((len(spans), MENTION_SLOTS), np.nan)
        end = np.full((len(spans), MENTION_SLOTS), np.nan)
        for row, named in enumerate(spans):
            for slot, (low, high) in enumerate(named[:MENTION_SLOTS]):
                start[row, slot], end[row, slot] = low, high
        more = np.fromiter((len(named) > MENTION_SLOTS for named in spans), dtype=bool, count=len(spans))
        return cls(start, end, more)


class MentionTimes:
    """Which memories name a time within given windows: from the saved columns where they hold,
    else by reading the memory (`spans_of`)."""

    def __init__(self, spans_of: Callable[[MemoryRecord], tuple[Span, ...]],
                 saved: MentionColumns | None = None) -> None:
        self._spans_of = spans_of
        self._saved = saved
        self._cover = SavedCover(len(saved.more) if saved is not None else 0)

    def refresh(self, row: int) -> None:
        """A record replaced in place: its words are read again when asked."""
        self._cover.refresh(row)

    def naming(self, records: Sequence[MemoryRecord], rows: np.ndarray, windows: list[Span], *,
               read: bool = True) -> np.ndarray:
        """For each of `rows`, whether its words name a time that overlaps one of `windows`;
        `read` False: only what the columns say (a row they do not cover counts as naming none)."""
        rows = np.asarray(rows, dtype=np.int64)
        found = np.zeros(len(rows), dtype=bool)
        saved = self._saved_positions(rows)
        if len(saved):
            assert self._saved is not None
            start, end = self._saved.start[rows[saved]], self._saved.end[rows[saved]]
            for low, high in windows:
                found[saved] |= ((start < high) & (low < end)).any(axis=1)  # (NaN never overlaps)
        for position in np.setdiff1d(np.arange(len(rows)), saved) if read else ():
            named = self._spans_of(records[int(rows[position])])
            found[position] = any(start < high and low < end for start, end in named for low, high in windows)
        return found

    def _saved_positions(self, rows: np.ndarray) -> np.ndarray:
        if self._saved is None:
            return np.zeros(0, dtype=np.int64)
        inside = self._cover.covers(rows)
        inside[inside] &= ~self._saved.more[rows[inside]]
        return np.flatnonzero(inside)
