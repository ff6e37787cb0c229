"""Relative times inside a remembered message, read from the day it was said.

"I went to a support group yesterday", said on 8 May 2023, is recalled months later: the
message's "yesterday" is no longer the reader's. A small model cannot count back from the
message's date, so the prompt shows what each relative phrase meant when it was said:
"yesterday (7 May 2023)", "last Friday (2 June 2023)", "last month (May 2023)".

A phrase that names one day gets that day; a month or a year gets its name. A week or a weekend
has no agreed edges ("last week", said on a Friday, may be the calendar week before or the seven
days before), so it is said against the day the message was told: "the week before 9 June 2023".
Vague phrases ("the past few weeks", "a few years ago"), phrases about the day itself ("today",
"this morning") and weekdays or weekends not marked as past ("on Monday", "this weekend": a plan
or a memory) are left as they are. The phrases are the ones `when` reads in a question (the same
strict patterns, so "may" or "second" are never dates).
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from ..reading.date_phrases import DAY, MAYBE, PHRASES, RELATIVE, DateSpan, resolve
from ..reading.patterns import LazyPattern
from .clock import spoken_date

_LEFT_ALONE = frozenset({"rolling"})  # "the past few weeks": no span worth naming
# A bare or "next" weekday or weekend may be either side of the day it was said ("I fly out on
# Monday", "this weekend"): only one marked as past is read.
_PAST_ONLY = frozenset({"weekday", "weekend"})
_MARKED_PAST = LazyPattern(r"\b(?:last|past|previous)\b", re.IGNORECASE)


def with_told_dates(text: str, said: datetime) -> str:
    """`text` with the date each relative time phrase meant when it was said at `said` (naive)
    written after the phrase in parentheses. Text without such a phrase comes back unchanged."""
    if not MAYBE.search(text):
        return text
    base = said.replace(tzinfo=None, second=0, microsecond=0)
    parts: list[str] = []
    last = 0
    for match in PHRASES.finditer(text):
        family = match.lastgroup or ""
        if family not in RELATIVE or family in _LEFT_ALONE or (
                family in _PAST_ONLY and not _MARKED_PAST.search(match.group(0))):
            continue
        span = resolve(family, match.group(0), base)
        meant = _meant(span, family, base) if span is not None else None
        if meant:
            parts += [text[last:match.end()], f" ({meant})"]
            last = match.end()
    return "".join(parts) + text[last:] if parts else text


def _meant(span: DateSpan, family: str, said: datetime) -> str | None:
    """The words for what `span` meant, or None where they would add nothing or guess."""
    said_day = datetime.combine(said.date(), datetime.min.time())
    days = (span.end - span.start) / DAY
    if days <= 1:
        return None if span.start.date() == said.date() else _day(span.start)
    if span.kind == "month":
        return f"{span.start:%B %Y}"
    if family == "unit" and days >= 365:
        return f"{span.start:%Y}"
    if family == "ago" and 365 <= days < 366:  # "5 years ago": that year, give or take
        return f"around {span.start + (span.end - span.start) / 2:%Y}"
    unit = "weekend" if family == "weekend" else "week" if span.kind == "week" else None
    if unit is None or span.start <= said_day < span.end:  # vague, or "this week" (the day's own)
        return None
    return _against(span, unit, said_day)


def week_before(span: DateSpan, said: datetime) -> str:
    """A week said against the day it was told: "the week before 9 June 2023", "two weeks
    before ..."; "" for the week of that day itself."""
    said_day = datetime.combine(said.date(), datetime.min.time())
    return "" if span.start <= said_day < span.end else _against(span, "week", said_day)


def _against(span: DateSpan, unit: str, said_day: datetime) -> str:
    """"the week before 9 June 2023", "two weeks before ...", "the weekend after ..."."""
    before = span.end <= said_day
    middle = span.start + (span.end - span.start) / 2
    count = max(1, round(abs(said_day - middle) / timedelta(days=7)))
    amount = f"the {unit}" if count == 1 else f"{_count_word(count)} {unit}s"
    return f"{amount} {'before' if before else 'after'} {_day(said_day)}"


def _count_word(count: int) -> str:
    words = ("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
    return words[count - 2] if 2 <= count <= 10 else str(count)


def _day(moment: datetime) -> str:
    return spoken_date(moment.date().isoformat())
