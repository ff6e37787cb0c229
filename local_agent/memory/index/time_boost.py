"""Time-aware recall: the dates a question names lift the memories of those days.

"What did we talk about on May 2nd?", "what did I tell you yesterday about my trip?": the
question's date phrases are read (`when.read_dates`, relative to the agent's today) into spans
of time, and every memory dated inside one gets TIME_BOOST added to its score. Nothing is
filtered: a dated question about something said on another day still finds it. A year-less date
("May 2nd", "in April") means its most recent past occurrence that has memories.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from collections.abc import Iterable, Sequence

from ...types import MemoryRecord
from ...when import DateSpan, read_dates, with_memories

TIME_BOOST = 0.15
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


def query_spans(query: str, today: dt.datetime, records: Sequence[MemoryRecord]) -> list[DateSpan]:
    """The spans of time `query` names, year-less ones moved to a year that has memories."""
    spans = read_dates(query, today)
    if not spans or not any(span.yearless for span in spans):
        return spans
    days = _days(records)
    return [with_memories(span, days) for span in spans]


def boosted_rows(records: Sequence[MemoryRecord], rows: Iterable[int], spans: list[DateSpan]) -> list[int]:
    """The rows among `rows` whose memory was said within one of `spans`."""
    found = []
    for row in rows:
        said = record_span(records[row])
        if said is not None and any(_overlaps(said, span) for span in spans):
            found.append(row)
    return found


def _overlaps(said: tuple[dt.datetime, dt.datetime], span: DateSpan) -> bool:
    start, end = span.start.replace(tzinfo=None), span.end.replace(tzinfo=None)
    if said[0] == said[1]:
        return start <= said[0] < end
    return said[0] < end and start <= said[1]


def _days(records: Sequence[MemoryRecord]) -> list[dt.date]:
    return [moment.date() for moment in (moment_of(r.provenance.date or "") for r in records if r.active) if moment]
