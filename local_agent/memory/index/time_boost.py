"""Time-aware recall: the dates a question names lift the memories of those days.

"What did we talk about on May 2nd?", "what did I tell you yesterday about my trip?": the
question's date phrases are read (`when.read_dates`, relative to the agent's today) into spans
of time, and a memory gets a bonus on its score (`bonuses`) when
- it was said within one (SAID_BOOST);
- it was said within TOLD_AFTER after one (TOLD_AFTER_BOOST): what happened on a day is often
  told a day or two later ("yesterday I went to the beach");
- its own words name a time within one (MENTION_BOOST), read relative to when it was said: "I
  held a benefit game last week", said on 8 January, answers "what did he do in January?".
Nothing is filtered: a dated question about something said on another day still finds it. A
year-less date ("May 2nd", "in April") means its most recent past occurrence that has memories.
The question's words that only say when (`when.without_dates`) are left out of the text search
and of the query's embedding: the bonuses stand for them. The bonuses were tuned on LoCoMo dev
(README).
"""

from __future__ import annotations

import datetime as dt
import functools
import re
import threading
from collections.abc import Callable, Sequence

import numpy as np

from ...dates.when import DateSpan, read_dates, with_memories, without_dates
from ...types import MemoryRecord

SAID_BOOST = 0.15
TOLD_AFTER_BOOST = 0.075
TOLD_AFTER = dt.timedelta(days=3)
MENTION_BOOST = 0.05
_LOCOMO = re.compile(r"(\d{1,2}:\d{2}\s*[ap]m)\s+on\s+(\d{1,2}\s+\w+),?\s+(\d{4})", re.IGNORECASE)


@functools.lru_cache(maxsize=65536)
def moment_of(stamp: str) -> dt.datetime | None:
    """A stored date as a moment: ISO (`2024-05-02`, `2024-05-02T09:30`) or the spoken form of
    imported conversations ("1:56 pm on 8 May, 2023", "8 May 2023"); None when unreadable."""
    text = stamp.strip()
    if not text:
        return None
    try:
        return dt.datetime.fromisoformat(text).replace(tzinfo=None)
    except ValueError:
        pass
    match = _LOCOMO.fullmatch(text)
    if match:
        try:
            return dt.datetime.strptime(" ".join(match.groups()).upper(), "%I:%M %p %d %B %Y")
        except ValueError:
            return None
    for pattern in ("%d %B %Y", "%d %B, %Y", "%B %d, %Y"):
        try:
            return dt.datetime.strptime(text, pattern)
        except ValueError:
            continue
    return None


def record_span(record: MemoryRecord) -> tuple[dt.datetime, dt.datetime] | None:
    """When a memory was said: its moment, or for a digest its days (provenance `until`)."""
    start = moment_of(record.provenance.date or "")
    if start is None:
        return None
    until = record.provenance.extra.get("until")
    end = moment_of(until) if isinstance(until, str) else None
    return start, max(end or start, start)


def query_spans(query: str, today: dt.datetime, memory_days: Callable[[], list[dt.date]]) -> list[DateSpan]:
    """The spans of time `query` names, year-less ones moved to a year that has memories
    (`memory_days` is asked for those days only then)."""
    spans = read_dates(query, today)
    if not spans or not any(span.yearless for span in spans):
        return spans
    days = memory_days()
    return [with_memories(span, days) for span in spans]


def topic_of(query: str, today: dt.datetime | None) -> str:
    """What the query asks about, apart from the dates it names (searched for by `bonuses`)."""
    return without_dates(query, today) if today is not None else query


def said_bonuses(said: SaidTimes, rows: np.ndarray, spans: list[DateSpan]) -> np.ndarray:
    """The bonus of each of `rows` for when it was said: within a span, or just after one
    (array operations over the rows: a dated question may weigh every memory)."""
    start, end = said.start[rows], said.end[rows]
    inside = np.zeros(len(rows), dtype=bool)
    after = np.zeros(len(rows), dtype=bool)
    for low, high in _windows(spans):
        low_s, high_s = _seconds(low), _seconds(high)
        inside |= _overlapping(start, end, low_s, high_s)
        after |= _overlapping(start, end, high_s, high_s + TOLD_AFTER.total_seconds())
    return np.where(inside, SAID_BOOST, np.where(after, TOLD_AFTER_BOOST, 0.0)).astype(np.float32)


def mention_bonuses(records: Sequence[MemoryRecord], rows: np.ndarray, spans: list[DateSpan]) -> np.ndarray:
    """The bonus of each of `rows` whose words name a time within a span. Reading a memory's
    dates costs more than reading its stamp, so recall asks this of its candidates only."""
    windows = _windows(spans)

    def speaks_of_one(row: int) -> bool:
        return any(start < end_of and start_of < end
                   for start_of, end_of in mentioned(records[row]) for start, end in windows)

    return np.asarray([MENTION_BOOST if speaks_of_one(row) else 0.0 for row in rows], dtype=np.float32)


def mentioned(record: MemoryRecord) -> tuple[tuple[dt.datetime, dt.datetime], ...]:
    """The spans of time a memory's words name, read relative to when it was said."""
    return _mentioned(record.text, record.provenance.date or "")


@functools.lru_cache(maxsize=65536)
def _mentioned(text: str, stamp: str) -> tuple[tuple[dt.datetime, dt.datetime], ...]:
    said = moment_of(stamp)
    if said is None:
        return ()
    return tuple((span.start, span.end) for span in read_dates(text, said))


def _windows(spans: list[DateSpan]) -> list[tuple[dt.datetime, dt.datetime]]:
    return [(span.start.replace(tzinfo=None), span.end.replace(tzinfo=None)) for span in spans]


def _overlapping(start: np.ndarray, end: np.ndarray, low: float, high: float) -> np.ndarray:
    """Which said-times fall in [low, high): a moment within it, a span of days touching it
    (NaN, an unknown time, never does)."""
    moment = start == end
    return np.where(moment, (low <= start) & (start < high), (start < high) & (low <= end))


_EPOCH = dt.datetime(1970, 1, 1)


def _seconds(moment: dt.datetime) -> float:
    return (moment.replace(tzinfo=None) - _EPOCH).total_seconds()


class SaidTimes:
    """When each record of a growing list was said, as seconds (start and end, equal for a
    moment; NaN when unknown): read once per record, on first need, so that opening a store
    reads no dates."""

    def __init__(self) -> None:
        self.start = np.empty(0)
        self.end = np.empty(0)
        self._lock = threading.Lock()  # readers of a store may recall at once

    def cover(self, records: Sequence[MemoryRecord]) -> SaidTimes:
        """Read the records not read yet (the list only grows); self."""
        with self._lock:
            known = len(self.start)
            if known < len(records):
                fresh = records[known:]
                spans = [record_span(record) for record in fresh]
                self.start = np.concatenate([self.start, [_seconds(s[0]) if s else np.nan for s in spans]])
                self.end = np.concatenate([self.end, [_seconds(s[1]) if s else np.nan for s in spans]])
        return self

    def refresh(self, row: int, record: MemoryRecord) -> None:
        """A record replaced in place: read again when it has been read."""
        with self._lock:
            if row < len(self.start):
                span = record_span(record)
                self.start[row], self.end[row] = (_seconds(span[0]), _seconds(span[1])) if span else (np.nan, np.nan)

    def days(self, rows: np.ndarray) -> list[dt.date]:
        """The days the records `rows` (a mask) were said on."""
        known = self.start[rows & ~np.isnan(self.start)]
        return [(_EPOCH + dt.timedelta(days=int(day))).date() for day in np.unique(known // 86400)]
