"""When each record was said, and the index that finds the records said within a span of time
without visiting every record (time_boost.py weighs them; a dated question asks for a few days
out of years of memories).

A record was said at a moment (start == end), over a span (a digest: its conversation's first
and last day), or at an unknown time (NaN). Three parts hold them:
- the snapshot's records (`SaidColumns`, written at compaction, store/columns.py): their times,
  the rows said at a moment sorted by that moment (found by binary search), and the rows said
  over a span (few: digests), checked one by one;
- records added since the snapshot, read on first need and checked one by one (array
  operations: the journal holds at most a share of the store);
- snapshot records changed since (a fact said again), with their new times, checked one by one.
"""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ...types import MemoryRecord

EPOCH = dt.datetime(1970, 1, 1)
DAY = 86400.0
Span = tuple[float, float]  # (start, end) in seconds since 1970; NaN when unknown


@dataclass(frozen=True)
class SaidColumns:
    """When the snapshot's records were said, as the store saved it (read-only arrays)."""

    start: np.ndarray  # float64 per row
    end: np.ndarray  # float64 per row
    moments: np.ndarray  # int32: rows said at a moment, by that moment (stable)
    moment_starts: np.ndarray  # float64: start[moments], ascending
    spans: np.ndarray  # int32: rows said over a span (end > start)

    @classmethod
    def of(cls, start: np.ndarray, end: np.ndarray) -> SaidColumns:
        """The index over these times (what compaction saves)."""
        start, end = np.asarray(start, dtype=np.float64), np.asarray(end, dtype=np.float64)
        known = ~np.isnan(start)
        moment_rows = np.flatnonzero(known & (start == end))
        moments = moment_rows[np.argsort(start[moment_rows], kind="stable")].astype(np.int32)
        spans = np.flatnonzero(known & (end > start)).astype(np.int32)
        return cls(start, end, moments, start[moments], spans)


def seconds(moment: dt.datetime) -> float:
    return (moment.replace(tzinfo=None) - EPOCH).total_seconds()


def overlapping(start: np.ndarray, end: np.ndarray, low: float, high: float) -> np.ndarray:
    """Which said-times fall in [low, high): a moment within it, a span of days touching it
    (NaN, an unknown time, never does)."""
    moment = start == end
    return np.where(moment, (low <= start) & (start < high), (start < high) & (low <= end))


class SaidTimes:
    """When each record of a growing list was said, and which were said within a span.
    `span_of` reads a record's time (store/records, time_boost.record_span)."""

    def __init__(self, span_of: Callable[[MemoryRecord], Span], saved: SaidColumns | None = None) -> None:
        self._span_of = span_of
        self._saved = saved
        self._saved_rows = len(saved.start) if saved is not None else 0
        self._start = np.empty(0)  # rows added since the snapshot, as read so far
        self._end = np.empty(0)
        self._changed: dict[int, Span] = {}  # snapshot rows since replaced in place
        self._days: tuple[np.ndarray, list[dt.date]] | None = None  # (the mask asked for, its days)
        self._lock = threading.Lock()  # readers of a store may recall at once

    def cover(self, records: Sequence[MemoryRecord]) -> SaidTimes:
        """Read the records added since and not read yet (the list only grows); self."""
        with self._lock:
            known = self._saved_rows + len(self._start)
            if known < len(records):
                spans = [self._span_of(records[row]) for row in range(known, len(records))]
                self._start = np.concatenate([self._start, [s for s, _ in spans]])
                self._end = np.concatenate([self._end, [e for _, e in spans]])
                self._days = None
        return self

    def refresh(self, row: int, record: MemoryRecord) -> None:
        """A record replaced in place: its time is read again."""
        with self._lock:
            if row < self._saved_rows:
                self._changed[row] = self._span_of(record)
            elif row - self._saved_rows < len(self._start):
                self._start[row - self._saved_rows], self._end[row - self._saved_rows] = self._span_of(record)
            self._days = None

    def times(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(start, end) of each of `rows` (read by `cover`)."""
        rows = np.asarray(rows, dtype=np.int64)
        start, end = np.empty(len(rows)), np.empty(len(rows))
        saved = rows < self._saved_rows
        if self._saved is not None and saved.any():
            start[saved], end[saved] = self._saved.start[rows[saved]], self._saved.end[rows[saved]]
        start[~saved] = self._start[rows[~saved] - self._saved_rows]
        end[~saved] = self._end[rows[~saved] - self._saved_rows]
        for index in np.flatnonzero(saved) if self._changed else ():
            changed = self._changed.get(int(rows[index]))
            if changed is not None:
                start[index], end[index] = changed
        return start, end

    def within(self, low: float, high: float) -> np.ndarray:
        """The rows said within [low, high) (`overlapping`), ascending."""
        found = [self._saved_within(low, high)] if self._saved is not None else []
        if len(self._start):
            found.append(np.flatnonzero(overlapping(self._start, self._end, low, high)) + self._saved_rows)
        if self._changed:
            rows = np.fromiter(self._changed, dtype=np.int64, count=len(self._changed))
            start, end = self.times(rows)
            found.append(rows[overlapping(start, end, low, high)])
        if len(found) == 1:  # the snapshot's rows alone: each once (a row is a moment or a span)
            return np.sort(found[0])
        return np.unique(np.concatenate(found)) if found else np.zeros(0, dtype=np.int64)

    def _saved_within(self, low: float, high: float) -> np.ndarray:
        saved = self._saved
        assert saved is not None
        first, stop = np.searchsorted(saved.moment_starts, [low, high], side="left")
        spans = saved.spans[overlapping(saved.start[saved.spans], saved.end[saved.spans], low, high)]
        rows = np.concatenate([saved.moments[first:stop], spans]).astype(np.int64)
        if self._changed:  # their saved times no longer hold; `within` checks them anew
            rows = rows[~np.isin(rows, np.fromiter(self._changed, dtype=np.int64, count=len(self._changed)))]
        return rows

    def days(self, allowed: np.ndarray) -> list[dt.date]:
        """The days the rows `allowed` (a mask) were said on, ascending and distinct (remembered for
        the same mask)."""
        cached = self._days
        if cached is not None and cached[0] is allowed:
            return cached[1]
        starts = [self._start[allowed[self._saved_rows :]]]
        if self._saved is not None:
            moments = self._saved.moments
            kept = allowed[moments]
            if self._changed:
                kept &= ~np.isin(moments, np.fromiter(self._changed, dtype=np.int64, count=len(self._changed)))
            spans = self._saved.spans[allowed[self._saved.spans]]
            changed = np.asarray([row for row in self._changed if allowed[row]], dtype=np.int64)
            starts += [self._saved.moment_starts[kept], self._saved.start[spans], self.times(changed)[0]]
        known = np.concatenate(starts)
        days = np.unique(known[~np.isnan(known)] // DAY)
        found = [(EPOCH + dt.timedelta(days=int(day))).date() for day in days]
        self._days = (allowed, found)
        return found

