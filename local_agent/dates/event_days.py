"""The day an event told in a message happened, or is to happen, read from the day it was said.

"We adopted a kitten yesterday!", said on 18 November 2026, tells of 17 November; "flight to
Oslo thursday", said on Monday 9 November, of Thursday 12 November; "I coach on Wednesdays" of
every Wednesday. `event_days` finds each such phrase in a text with what it meant when said.
Stored messages keep their words and the day they were said, so this is computed on read: old
stores need nothing new, and the reading can improve without rewriting them.

It reads the phrases a question's dates and `when_told` read (reading/date_phrases.py: the same
strict patterns, the same resolver), and what only a told event needs besides:
- a weekday without "last", "this" or "next" ("on Saturday", "thursday") is the nearest one
  before the day it was said when its clause speaks in the past ("we went on Saturday"), else the
  next one after ("flight to Oslo thursday", "gig on friday"); likewise a date or a month
  without a year ("dec 12", "in January") and "on the 3rd";
- "today", "this morning", "tonight", "just now" are the day it was said;
- "a week ago Tuesday" is the Tuesday of the week a week before; "Monday of last week", "Tuesday
  this week" that weekday of the week named;
- "every Thursday", "on Wednesdays" are a recurring weekday, not one day.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from ..reading.date_phrases import DAY, PHRASES, DateSpan, midnight, resolve
from ..reading.patterns import LazyPattern
from ..reading.words import WEEKDAYS, full_weekday, word_set, words

_WEEKDAY = "|".join(WEEKDAYS)
_RECURRING = LazyPattern(rf"\b(?:(?:every|each)\s+(?:other\s+)?(?P<every>{_WEEKDAY})|(?P<plural>{_WEEKDAY})s)\b",
                         re.IGNORECASE)
_BARE_WEEKDAY = LazyPattern(rf"\b(?:(?P<ahead>to|for|till|until)\s+|on\s+)?(?P<day>{_WEEKDAY})\b(?!['\u2019]s)",
                            re.IGNORECASE)
_NTH = LazyPattern(r"\bon\s+the\s+(?P<n>3[01]|[12][0-9]|0?[1-9])(?:st|nd|rd|th)\b"
                   r"(?=\s*(?:[.,;:!?)]|$|(?:at|and|but|so|too|then|or|for|we|i|is|was|will)\b))", re.IGNORECASE)
_JUST_NOW = LazyPattern(r"\bjust\s+now\b", re.IGNORECASE)
_MARKED = LazyPattern(r"\b(?:last|past|previous|this|next)\b", re.IGNORECASE)
_CLAUSE_EDGE = LazyPattern(r"[.!?;,\n]|\b(?:but|and then|then|so)\b", re.IGNORECASE)
_SENTENCE_OPEN = LazyPattern(r"[.!?\n]")
# a clause with one of these (or a past form) has a tense of its own; one without ("on the
# Friday") takes its sentence's
_TENSED = LazyPattern(r"\b(?:am|is|are|will|shall|can|do|does|have|has|going|gonna|'m|'re|'ll|'s|"
                      r"i'm|we're|you're|it's|he's|she's|they're|tomorrow|next|need|want|hope|plan|"
                      r"I|we|you|he|she|they)\b", re.IGNORECASE)
_PAST_VERBS = word_set("past_verbs") | {"ago", "yesterday"}
# "I'm excited for Saturday", "we're booked for friday": an -ed word after these is no past
_STATE = frozenset("am is are be being been get getting i'm we're you're he's she's it's they're so very really "
                   "all too feel feeling".split())
_NOT_PAST = frozenset("hundred shed sacred naked wicked wretched rugged beloved".split())  # -ed, no past form
_SKIPPED = frozenset({"rolling", "offset"})  # "the past few weeks"; "the week before" needs a day after it


@dataclass(frozen=True)
class EventDay:
    """A time phrase of a told event: its words and where they are in the text, and what it
    meant when said: a `span` (a day, a part of one, a week, a month), or a recurring
    `weekday` ("Wednesday") with no span."""

    phrase: str
    start: int
    end: int
    span: DateSpan | None = None
    weekday: str = ""

    @property
    def one_day(self) -> bool:
        """Whether it names one day (or a part of one)."""
        return self.span is not None and self.span.kind in ("day", "part_of_day")


def event_days(text: str, said: datetime) -> list[EventDay]:
    """The time phrases of `text` said at `said` (naive or aware; read as naive), in order,
    each with what it meant (see the module's rules). Phrases that name no time worth telling
    ("the past few weeks") or that cannot be read are left out."""
    base = said.replace(tzinfo=None, second=0, microsecond=0)
    found = _recurring(text)  # "every Thursday evening" before "Thursday evening"
    found += [day for day in _phrases(text, base) if not _covered(found, day.start, day.end)]
    found += _extra_days(text, base, found)  # after the others: only where none of them is
    return _dated_weekdays_dropped(text, _within_weeks(text, sorted(found, key=lambda day: day.start)))


_WEEKDAY_ONLY = LazyPattern(rf"^(?:on\s+|next\s+|this\s+|last\s+)?(?:{_WEEKDAY})$", re.IGNORECASE)


def _dated_weekdays_dropped(text: str, found: list[EventDay]) -> list[EventDay]:
    """The phrases but a weekday right before a date, which names that date ("on Saturday 15
    August" is 15 August, not also the coming Saturday)."""
    return [day for day, after in zip(found, [*found[1:], None], strict=False)
            if not (after is not None and after.span is not None and after.span.kind == "day"
                    and _WEEKDAY_ONLY.match(day.phrase.strip())
                    and re.fullmatch(r"[\s,]*(?:the\s+)?", text[day.end:after.start]))]


_OF_WEEK = re.compile(r"\s*(?:of\s+)?", re.IGNORECASE)


def _within_weeks(text: str, found: list[EventDay]) -> list[EventDay]:
    """A weekday said with the week it is in ("on Monday of last week", "Tuesday this week"):
    that weekday of that week, one phrase; the others as they are."""
    merged: list[EventDay] = []
    for day in found:
        before = merged[-1] if merged else None
        if (day.span is not None and day.span.kind == "week" and before is not None and before.one_day
                and before.span is not None and _OF_WEEK.fullmatch(text[before.end:day.start])
                and (named := _BARE_WEEKDAY.search(before.phrase))):
            start = day.span.start + timedelta(days=WEEKDAYS.index(named["day"].lower()) - day.span.start.weekday())
            span = DateSpan(start, start + timedelta(days=1), text[before.start:day.end], "day", False)
            merged[-1] = EventDay(text[before.start:day.end], before.start, day.end, span)
            continue
        merged.append(day)
    return merged


def in_past(text: str, start: int, end: int) -> bool:
    """Whether the clause of `text` around [start, end) speaks in the past: a past form ("went",
    "died", "ago"), an -ed word not after "I'm", "so", "feel" ("I'm excited for Saturday")."""
    clause = _clause(text, start, end)
    if _past(clause):
        return True
    if _TENSED.search(clause) or not text[:start].strip():
        return False
    sentence = _SENTENCE_OPEN.split(text[:start])[-1]  # ", on the Friday," has no tense of its own
    return _past(sentence)


def _past(clause: str) -> bool:
    """Whether `clause` holds a past form (see `in_past`)."""
    said = words(clause)
    for index, word in enumerate(said):
        if word in _PAST_VERBS:
            return True
        if len(word) > 3 and word.endswith("ed") and not word.endswith("eed") and word not in _NOT_PAST and (
                index == 0 or said[index - 1] not in _STATE):
            return True
    return False


def same_clause(text: str, first: int, second: int) -> bool:
    """Whether nothing that ends a clause (see `in_past`) stands between two places of `text`."""
    low, high = sorted((first, second))
    return _CLAUSE_EDGE.search(text, low, high) is None


def _clause(text: str, start: int, end: int) -> str:
    edges = [match.span() for match in _CLAUSE_EDGE.finditer(text)]
    before = max((stop for first, stop in edges if stop <= start), default=0)
    after = min((first for first, stop in edges if first >= end), default=len(text))
    return text[before:after]


def _phrases(text: str, base: datetime) -> list[EventDay]:
    """The phrases of date_phrases.PHRASES, each read for a told event."""
    found: list[EventDay] = []
    for match in PHRASES.finditer(text):
        family = match.lastgroup or ""
        if family in _SKIPPED:
            continue
        past = in_past(text, match.start(), match.end())
        span = _read(family, match.group(0), base, past)
        if span is not None:
            found.append(EventDay(match.group(0), match.start(), match.end(), span))
    return _week_ago_weekday(text, base, found)


def _read(family: str, phrase: str, base: datetime, past: bool) -> DateSpan | None:
    """One phrase's span, a weekday, weekend, date or month not marked past or next taken on
    the side of `base` its clause speaks of."""
    marked = bool(_MARKED.search(phrase))
    if family == "weekday" and not marked and not past:
        day = next(filter(None, map(full_weekday, words(phrase))), None)  # "on wed": Wednesday
        return resolve(family, f"next {day or phrase}", base)
    span = resolve(family, phrase, base)
    if span is None or past or marked:
        return span
    today = midnight(base)
    if family == "weekend" and span.end <= today:
        return replace(span, start=span.start + 7 * DAY, end=span.end + 7 * DAY)
    if span.yearless and span.end <= today:
        return _next_year(span)
    return span


def _next_year(span: DateSpan) -> DateSpan:
    try:
        return replace(span, start=span.start.replace(year=span.start.year + 1),
                       end=span.end.replace(year=span.end.year + 1), yearless=False)
    except ValueError:  # 29 February
        return span


def _week_ago_weekday(text: str, base: datetime, found: list[EventDay]) -> list[EventDay]:
    """"a week ago Tuesday": the most recent Tuesday (today included), a week before."""
    joined: list[EventDay] = []
    for day in found:
        after = _BARE_WEEKDAY.match(text, day.end + 1) if text[day.end:day.end + 1] == " " else None
        span = day.span
        if after is None or span is None or span.kind != "week" or not day.phrase.lower().endswith("ago"):
            joined.append(day)
            continue
        today = midnight(base)
        weeks = round((today - (span.start + (span.end - span.start) / 2)) / timedelta(days=7))
        recent = today - timedelta(days=(today.weekday() - WEEKDAYS.index(after["day"].lower())) % 7)
        moment = recent - timedelta(days=7 * weeks)
        phrase = text[day.start:after.end()]
        joined.append(EventDay(phrase, day.start, after.end(), DateSpan(moment, moment + DAY, phrase, "day")))
    return joined


def _covered(found: list[EventDay], start: int, end: int) -> bool:
    return any(day.start < end and start < day.end for day in found)


def _recurring(text: str) -> list[EventDay]:
    """"every Thursday", "on Wednesdays": the weekday, capitalized."""
    return [EventDay(found.group(0), found.start(), found.end(),
                     weekday=(found["every"] or found["plural"]).capitalize()) for found in _RECURRING.finditer(text)]


def _extra_days(text: str, base: datetime, found: list[EventDay]) -> list[EventDay]:
    """A bare weekday ("thursday"), "on the 3rd" and "just now", where no other phrase is."""
    extra: list[EventDay] = []
    for pattern, read in ((_BARE_WEEKDAY, _bare_weekday), (_NTH, _nth_day), (_JUST_NOW, _just_now)):
        for match in pattern.finditer(text):
            if not _covered([*found, *extra], match.start(), match.end()):
                span = read(match, base, in_past(text, match.start(), match.end()))
                if span is not None:
                    extra.append(EventDay(match.group(0), match.start(), match.end(), span))
    return extra


def _bare_weekday(match: re.Match[str], base: datetime, past: bool) -> DateSpan | None:
    """The weekday before `base` in a clause in the past, else (or "moved to Monday", "booked
    for Friday") the one after."""
    ahead = not past or match["ahead"] is not None
    span = resolve("weekday", f"{'next' if ahead else 'on'} {match['day']}", base)
    return None if span is None else replace(span, text=match.group(0))


def _nth_day(match: re.Match[str], base: datetime, past: bool) -> DateSpan | None:
    moment = _nth(int(match["n"]), midnight(base), past)
    return None if moment is None else DateSpan(moment, moment + DAY, match.group(0), "day")


def _just_now(match: re.Match[str], base: datetime, past: bool) -> DateSpan | None:
    return DateSpan(midnight(base), midnight(base) + DAY, match.group(0), "day")


def _nth(number: int, today: datetime, past: bool) -> datetime | None:
    """The day numbered `number` nearest `today` on the side the clause speaks of: this month's
    or last month's in the past (today included), this month's or next month's ahead."""
    year, month = today.year, today.month
    for _ in range(3):
        try:
            moment = datetime(year, month, number)
        except ValueError:
            moment = None
        if moment is not None and (moment <= today if past else moment > today):
            return moment
        month += -1 if past else 1
        if month in (0, 13):
            year, month = year + (-1 if past else 1), 12 if month == 0 else 1
    return None
