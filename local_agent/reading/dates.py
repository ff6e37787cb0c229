"""Dates and relative times in a question ("yesterday", "last Tuesday", "on May 2nd", "two weeks
ago", "in April", "the week before 3 August 2023"), read as ranges of time relative to the
agent's today.

Phrases are found with strict patterns (`when_phrases`), so words that only look like dates
("may", "march", "sat", "second", "date", "now") are never read, and each is resolved by
dateparser. Then phrases that belong together are joined: "since May", "between May 2 and
May 5", "the week before <day>", and a relative phrase that hangs on a named day ("last
Friday, as mentioned on 23 January 2022") is read from that day instead of today. A question
without a date costs one regular-expression search; dateparser loads on the first date phrase.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta

from .date_phrases import (
    ABSOLUTE_DAYS,
    DAY,
    MAYBE,
    PHRASES,
    RELATIVE,
    DateSpan,
    Kind,
    midnight,
    resolve,
    resolve_offset,
)
from .patterns import LazyPattern

__all__ = ["DateSpan", "Kind", "read_dates", "warm_up", "with_memories", "without_dates"]

_SINCE = LazyPattern(r"\bsince\s+$", re.IGNORECASE)
_OPENS_RANGE = LazyPattern(r"\b(?:between|from)\s+$", re.IGNORECASE)
_JOINS_RANGE = LazyPattern(r"\s*(?:-|\u2013|to|until|till|through|and)\s*", re.IGNORECASE)  # \u2013: en dash
# Words that only tie a date phrase to the question ("on", "in", "between ... and", "the week
# before ..."): they go with the phrase when the question's topic is taken apart from its dates.
_LEADS_IN = LazyPattern(r"(?:\b(?:on|in|during|since|between|from|of|at|around|by|until|before|after)\s+)+$",
                       re.IGNORECASE)
_TIES = LazyPattern(r"\s*,?\s*(?:(?:as\s+)?(?:mentioned|said|told|stated|written|noted)\s+)?"
                   r"(?:-|\u2013|to|until|till|through|and|on|before|after|as\s+of)?\s*", re.IGNORECASE)
_HANGS_ON = LazyPattern(
    r"\s*,?\s*(?:(?:as\s+)?(?:mentioned|said|told|stated|written|noted)\s+)?(?:on|before|as\s+of)\s+", re.IGNORECASE)


@dataclass(frozen=True)
class _Found:
    """A matched phrase: where it is in the question, its family, and its span once read."""

    start: int
    end: int
    family: str
    span: DateSpan | None


def read_dates(query: str, today: datetime) -> list[DateSpan]:
    """The date expressions in `query`, in order, resolved relative to `today` (naive or aware;
    the spans carry its tzinfo). Phrases the date library cannot resolve are left out."""
    if not MAYBE.search(query):
        return []
    base = today.replace(tzinfo=None, second=0, microsecond=0)  # one cache entry a minute
    return [replace(span, start=span.start.replace(tzinfo=today.tzinfo), end=span.end.replace(tzinfo=today.tzinfo))
            for span in _spans(query, base)]


@functools.lru_cache(maxsize=64)
def _spans(query: str, base: datetime) -> tuple[DateSpan, ...]:
    """read_dates' spans, naive. (A dated question is read three times: for its topic, where
    recall leaves its dates out of the text search, and for its spans.)"""
    found = [_Found(match.start(), match.end(), match.lastgroup or "",
                    None if match.lastgroup == "offset" else resolve(match.lastgroup or "", match.group(0), base))
             for match in PHRASES.finditer(query)]
    found = _join_ranges(query, _since(query, _hang_on_days(query, found), base))
    return tuple(item.span for item in found if item.span is not None)


def without_dates(query: str, today: datetime) -> str:
    """`query` with its date phrases (and the words that tie them in) taken out: what it asks
    about, apart from when. "What dish did Nate make on 9 November, 2022?" -> "What dish did
    Nate make?". A question without a date, or with nothing but a date, comes back unchanged."""
    if not read_dates(query, today):
        return query
    kept: list[str] = []
    last = 0
    for match in PHRASES.finditer(query):
        gap = query[last:match.start()]
        kept.append("" if last and _TIES.fullmatch(gap) else _LEADS_IN.sub("", gap))
        last = match.end()
    kept.append(query[last:])
    topic = re.sub(r"\s+(?=[?.,!;:])", "", " ".join("".join(kept).split()))
    return topic if any(char.isalnum() for char in topic) else query


def warm_up() -> None:
    """Load the date library now (a few tenths of a second), so the first dated question does
    not pay for it; a front end may call this in the background at start."""
    read_dates("on 2 May 2024", datetime(2024, 5, 3))


def with_memories(span: DateSpan, days: Sequence[date]) -> DateSpan:
    """For a year-less span, its most recent past occurrence that has memories on one of its
    `days` (ascending and distinct, as SaidTimes.days gives them: sorting ten years of days
    again took 0.7 ms a question), else the span itself (the most recent occurrence). Other
    spans come back unchanged."""
    if not span.yearless:
        return span
    if not days:
        return span
    for year in range(span.start.year, days[0].year - 1, -1):
        try:
            moved = replace(span, start=span.start.replace(year=year),
                            end=span.end.replace(year=year + span.end.year - span.start.year))
        except ValueError:  # 29 February in a year without one
            continue
        first = bisect.bisect_left(days, moved.start.date())
        if first < len(days) and datetime.combine(days[first], datetime.min.time(), moved.start.tzinfo) < moved.end:
            return moved
    return span


def _hang_on_days(query: str, found: list[_Found]) -> list[_Found]:
    """"the week before <day>" and "last Friday on <day>" become one range read from that day,
    reaching to the day itself (what was told that day is stored with its date). An offset
    phrase with no day after it is dropped."""
    joined: list[_Found] = []
    index = 0
    while index < len(found):
        item = found[index]
        hung = _hung(query, item, found[index + 1]) if index + 1 < len(found) else None
        if hung is not None:
            joined.append(hung)
            index += 1
        elif item.family != "offset":
            joined.append(item)
        index += 1
    return joined


def _hung(query: str, item: _Found, following: _Found) -> _Found | None:
    day = following.span
    if following.family not in ABSOLUTE_DAYS or day is None:
        return None
    gap = query[item.end:following.start]
    if item.family == "offset" and not gap.strip():
        span: DateSpan | None = resolve_offset(query[item.start:item.end], day)
    elif item.family in RELATIVE and _HANGS_ON.fullmatch(gap):
        span = _read_from(item.family, query[item.start:item.end], day, query[item.start:following.end])
    else:
        return None
    return _Found(item.start, following.end, "range", span)


def _read_from(family: str, text: str, day: DateSpan, words: str) -> DateSpan | None:
    """A relative phrase read from `day` (at noon) instead of today, joined with that day."""
    span = resolve(family, text, day.start + timedelta(hours=12))
    if span is None:
        return None
    return DateSpan(min(span.start, day.start), max(span.end, day.end), " ".join(words.split()), "range", day.yearless)


def _since(query: str, found: list[_Found], base: datetime) -> list[_Found]:
    """"since April", "since last Tuesday": from then to the end of today."""
    end_of_today = midnight(base) + DAY
    return [replace(item, span=replace(item.span, end=max(item.span.end, end_of_today), kind="range", yearless=False))
            if item.span and (_SINCE.search(query, 0, item.start) or item.span.text.lower().startswith("since"))
            else item for item in found]


def _join_ranges(query: str, found: list[_Found]) -> list[_Found]:
    """"between May 2 and May 5", "from 3 May to 5 May": one range from the first to the end of
    the second."""
    joined: list[_Found] = []
    index = 0
    while index < len(found):
        item = found[index]
        following = found[index + 1] if index + 1 < len(found) else None
        if (item.span and following and following.span and _OPENS_RANGE.search(query, 0, item.start)
                and _JOINS_RANGE.fullmatch(query, item.end, following.start) and following.span.end > item.span.start):
            span = DateSpan(item.span.start, following.span.end, " ".join(query[item.start:following.end].split()),
                            "range", item.span.yearless and following.span.yearless)
            joined.append(_Found(item.start, following.end, "range", span))
            index += 2
            continue
        joined.append(item)
        index += 1
    return joined
