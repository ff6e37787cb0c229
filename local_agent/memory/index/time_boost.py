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
import math
import re
from collections.abc import Callable, Sequence

import numpy as np

from ...reading.dates import DateSpan, read_dates, with_memories, without_dates
from ...types import MemoryRecord
from .mention_times import MentionColumns, MentionTimes
from .said_times import SaidColumns, SaidTimes, Span, overlapping, seconds

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
    until = record.provenance.until
    end = moment_of(until) if until is not None else None
    return start, max(end or start, start)


def said_span(record: MemoryRecord) -> Span:
    """`record_span` in seconds since 1970 (NaN when unknown), as the date index keeps it."""
    span = record_span(record)
    return (seconds(span[0]), seconds(span[1])) if span else (math.nan, math.nan)


def new_said_times(saved: SaidColumns | None = None) -> SaidTimes:
    """The date index of a store's records (`saved`: the snapshot's, as compaction wrote them)."""
    return SaidTimes(said_span, saved)


def query_spans(query: str, today: dt.datetime, memory_days: Callable[[], list[dt.date]]) -> list[DateSpan]:
    """The spans of time `query` names, year-less ones moved to a year that has memories
    (`memory_days` gives those days, ascending and distinct; it is asked only then)."""
    spans = read_dates(query, today)
    if not spans or not any(span.yearless for span in spans):
        return spans
    days = memory_days()
    return [with_memories(span, days) for span in spans]


def topic_of(query: str, today: dt.datetime | None) -> str:
    """What the query asks about, apart from the dates it names (searched for by `bonuses`)."""
    return without_dates(query, today) if today is not None else query


def said_rows(said: SaidTimes, spans: list[DateSpan], allowed: np.ndarray) -> np.ndarray:
    """The `allowed` rows said within a span or just after one: those `said_bonuses` lifts,
    found through the date index (never a pass over every record)."""
    found = [said.within(seconds(low), seconds(high) + TOLD_AFTER.total_seconds()) for low, high in _windows(spans)]
    rows = found[0] if len(found) == 1 else np.unique(np.concatenate(found)) if found else np.zeros(0, dtype=np.int64)
    return rows[allowed[rows]]


def said_bonuses(said: SaidTimes, rows: np.ndarray, spans: list[DateSpan]) -> np.ndarray:
    """The bonus of each of `rows` for when it was said: within a span, or just after one."""
    start, end = said.times(rows)
    inside = np.zeros(len(rows), dtype=bool)
    after = np.zeros(len(rows), dtype=bool)
    for low, high in _windows(spans):
        low_s, high_s = seconds(low), seconds(high)
        inside |= overlapping(start, end, low_s, high_s)
        after |= overlapping(start, end, high_s, high_s + TOLD_AFTER.total_seconds())
    return np.where(inside, SAID_BOOST, np.where(after, TOLD_AFTER_BOOST, 0.0)).astype(np.float32)


def mention_bonuses(mentions: MentionTimes, records: Sequence[MemoryRecord], rows: np.ndarray,
                    spans: list[DateSpan], *, read: bool = True) -> np.ndarray:
    """The bonus of each of `rows` whose words name a time within a span (what they name is
    kept in the columns file, mention_times.py; `read` False: only what it keeps, no memory's
    words read now)."""
    windows = [(seconds(start), seconds(end)) for start, end in _windows(spans)]
    return np.where(mentions.naming(records, rows, windows, read=read), MENTION_BOOST, 0.0).astype(np.float32)


def mentioned(record: MemoryRecord) -> tuple[tuple[dt.datetime, dt.datetime], ...]:
    """The spans of time a memory's words name, read relative to when it was said."""
    return _mentioned(record.text, record.provenance.date or "")


def mentioned_seconds(record: MemoryRecord) -> tuple[Span, ...]:
    """`mentioned` in seconds since 1970, as MentionTimes keeps them."""
    return tuple((seconds(start), seconds(end)) for start, end in mentioned(record))


def new_mention_times(saved: MentionColumns | None = None) -> MentionTimes:
    """What a store's memories name (`saved`: the snapshot's, as compaction wrote them)."""
    return MentionTimes(mentioned_seconds, saved)


def mention_columns(records: Sequence[MemoryRecord]) -> MentionColumns:
    """The columns compaction saves of what `records` name (reading each one's words)."""
    return MentionColumns.of([mentioned_seconds(record) for record in records])


@functools.lru_cache(maxsize=65536)
def _mentioned(text: str, stamp: str) -> tuple[tuple[dt.datetime, dt.datetime], ...]:
    said = moment_of(stamp)
    if said is None:
        return ()
    return tuple((span.start, span.end) for span in read_dates(text, said))


def _windows(spans: list[DateSpan]) -> list[tuple[dt.datetime, dt.datetime]]:
    return [(span.start.replace(tzinfo=None), span.end.replace(tzinfo=None)) for span in spans]
