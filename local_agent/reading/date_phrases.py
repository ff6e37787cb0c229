"""The date phrases `when.read_dates` looks for, and how one phrase becomes a span of time.

Each phrase family is a strict pattern: a month name needs a day, a year or a context word ("in
May", never "I may go"), a weekday needs "on"/"last"/"this"/"since" or a part of the day, an
abbreviation needs a number, an ordinal word needs "the ... of <month>". The phrase is then
resolved by dateparser relative to a base moment, preferring the past, and widened to the range
it names (a day, a Monday-first week, a month, a year, a part of the day).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal

from .patterns import LazyPattern
from .words import MONTHS, NUMBER_WORDS, WEEKDAY_ABBREVIATIONS, WEEKDAYS, alternation, full_weekday

Kind = Literal["day", "week", "month", "range", "part_of_day"]
DAY = timedelta(days=1)

_MONTHS = "|".join(MONTHS)
_ABBREVIATIONS = rf"(?:{alternation({month[:3] for month in MONTHS if month != 'may'} | {'sept'})})\b\.?"
_MONTH = rf"(?:(?:{_MONTHS})\b|{_ABBREVIATIONS})"
# "may" and "march" before a number are verbs ("I march 3 miles") unless capitalised or after a
# preposition ("on may 2").
_PREPOSITIONS = ("on", "of", "by", "since", "until", "from", "before", "after", "in", "between", "and", "to", "the",
                 "about", "around", "at")
_AFTER_PREPOSITION = "|".join(rf"(?<=\b{word} )" for word in _PREPOSITIONS)
_UNAMBIGUOUS_MONTHS = _MONTHS.replace("march|", "").replace("may|", "")
_LEADING_MONTH = (rf"(?:(?:{_AFTER_PREPOSITION})(?:may|march)\b|(?-i:May|March)\b|(?:{_UNAMBIGUOUS_MONTHS})\b|"
                  rf"{_ABBREVIATIONS})")
_DAY = r"(?:3[01]|[12][0-9]|0?[1-9])(?:st|nd|rd|th)?\b"
_YEAR_DIGITS = r"(?:19|20)[0-9]{2}"
_YEAR = _YEAR_DIGITS + r"\b"
_WEEKDAYS = WEEKDAYS
_WEEKDAY = rf"(?:{'|'.join(_WEEKDAYS)})\b"
_WEEKDAY_SAID = rf"(?:{'|'.join([*_WEEKDAYS, *WEEKDAY_ABBREVIATIONS])})\b"
# a shortened weekday only after "on", "since", "last", "next" ("on wed"): not "this sun", "on sat nav"
_SHORT_WEEKDAY = rf"(?:{'|'.join(WEEKDAY_ABBREVIATIONS)})\b(?!\s*nav\b)"
_APOSTROPHE = "['\u2019]"  # straight or typographic
_PART = r"(?:morning|afternoon|evening|night)\b"
_PART_HOURS = {"morning": (5, 12), "afternoon": (12, 17), "evening": (17, 24), "night": (18, 30)}
_ORDINALS = ("first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth "
             "fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth twentieth").split()
_ORDINAL_DAYS = {word: n for n, word in enumerate(_ORDINALS, 1)}
_ORDINAL_DAYS |= {f"twenty-{word}": 20 + n for n, word in enumerate(_ORDINALS[:9], 1)}
_ORDINAL_DAYS |= {"thirtieth": 30, "thirty-first": 31}
_ORDINAL = "|".join(sorted(_ORDINAL_DAYS, key=len, reverse=True))
_NUMBERS = {word: n for n, word in enumerate(NUMBER_WORDS, 1)}
_VAGUE = {"a couple of": 2, "couple of": 2, "a few": 3, "few": 3, "several": 3}
_COUNT = r"(?:[0-9]{1,3}|an?|a\s+couple\s+of|couple\s+of|a\s+few|few|several|" + "|".join(_NUMBERS) + r")"
_UNIT = r"(?:day|week|month|year)s?\b"
_UNIT_DAYS = {"day": 1, "week": 7, "month": 30, "year": 365}
# "This may help" is a verb; "this May" (capitalised) is the month.
_MONTH_CONTEXT = (rf"(?:(?:(?:in|during|since|last|next|early|late|mid|(?:the\s+)?(?:end|beginning|start|middle)\s+of)"
                  rf"\s+|mid-)(?:the\s+month\s+of\s+)?(?:{_MONTHS})|this\s+(?:(?-i:May)|"
                  rf"{_MONTHS.replace('may|', '')}))\b(?!{_APOSTROPHE}s\b)(?!,?\s*[0-9])")

# Families in priority order: at one position the first that matches wins.
_FAMILIES: dict[str, str] = {
    "iso": rf"\b{_YEAR_DIGITS}[-/.](?:1[0-2]|0?[1-9])[-/.](?:3[01]|[12][0-9]|0?[1-9])\b",
    "slashed": rf"\b(?:1[0-2]|0?[1-9])/(?:3[01]|[12][0-9]|0?[1-9])/{_YEAR}",
    "day_before": r"\bthe\s+day\s+before\s+yesterday\b",
    "offset": rf"\b(?:the\s+)?(?:{_COUNT}\s+)?(?:{_UNIT}|weekend\b|{_WEEKDAY})\s+(?:before|after)\b",
    "ordinal_of": rf"\bthe\s+(?:{_ORDINAL})\s+of\s+{_MONTH}(?:,?\s+{_YEAR})?",
    "day_month": rf"\b(?:the\s+)?{_DAY}\s+(?:of\s+)?{_MONTH}(?:,?\s+{_YEAR})?",
    "month_year": rf"\b{_MONTH},?\s+(?:of\s+)?{_YEAR}",
    "month_day": rf"\b{_LEADING_MONTH}\s+(?:the\s+)?{_DAY}(?:,?\s+{_YEAR})?(?![:.,]?[0-9])",
    "month": rf"\b{_MONTH_CONTEXT}",
    "year": (rf"\b(?:(?:in|during|since|from|of|throughout|early|late|mid)\s+|mid-)(?:the\s+year\s+)?{_YEAR}"
             rf"(?![-/.]?[0-9]|s\b|{_APOSTROPHE}s)"),
    "relative_day": rf"\b(?:earlier\s+)?(?:yesterday|today|tomorrow)(?:{_APOSTROPHE}s)?(?:\s+{_PART})?",
    "this_part": r"\b(?:(?:earlier\s+)?this\s+(?:morning|afternoon|evening)|last\s+night|tonight)\b",
    "weekday": (rf"\b(?:(?:on|since)\s+(?:(?:last|this|past|previous|next)\s+)?|(?:last|this|past|previous|next)\s+)"
                rf"{_WEEKDAY}(?:\s+{_PART})?|\b{_WEEKDAY}\s+{_PART}|\b(?:on|since|last|next)\s+{_SHORT_WEEKDAY}"),
    "ago": rf"\b{_COUNT}\s+{_UNIT}\s+ago\b",
    "rolling": rf"\b(?:the\s+(?:past|last|previous)|(?:this\s+)?past)\s+(?:{_COUNT}\s+)?{_UNIT}",
    "weekend": r"\b(?:(?:this|last|next|past|previous)|(?:at|over|on|during)?\s*the)\s+weekend\b",
    "unit": r"\b(?:this|last|next|previous)\s+(?:week|month|year)\b",
}
# Every family starts at a word boundary: said once, before the alternatives, the engine tries
# them at boundaries only (0.21 -> 0.14 ms for a 100-character text).
PHRASES = LazyPattern(r"\b(?=[\s\w])(?:" + "|".join(f"(?P<{name}>{pattern})" for name, pattern in _FAMILIES.items())
                      + ")", re.IGNORECASE)
# A cheap first look: a question with none of these cannot hold a date phrase.
# Every family holds one of its words, or digits a date's own way: a year, digits joined by / . or
# -, an ordinal ("the 3rd"). A bare number ("I ran 5 km", "note 17") needs one of the words too
# ("5 days ago", "May 17"), so it alone does not send a text to PHRASES (0.2 ms a memory).
MAYBE = LazyPattern(r"(?:19|20)[0-9]{2}|[0-9][/.-][0-9]|[0-9](?:st|nd|rd|th)\b|"
                   r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|mon|tue|wed|thu|fri|sat|sun|"
                   r"day|yesterday|today|tonight|tomorrow|ago|week|month|year|morning|afternoon|evening|night)",
                   re.IGNORECASE)
# A named day, the reference "the week before ..." or "last Friday, as mentioned on ..." hangs on.
ABSOLUTE_DAYS = frozenset({"iso", "slashed", "ordinal_of", "day_month", "month_day"})
# Phrases read from today, that read from a named day instead when they hang on one.
RELATIVE = frozenset({"day_before", "relative_day", "this_part", "weekday", "ago", "rolling", "weekend", "unit"})


@dataclass(frozen=True)
class DateSpan:
    """A stretch of time a question names: [start, end), the words that named it and their kind.
    `yearless` marks a date or month named without a year ("May 2", "in April"): it is read as
    the most recent past occurrence; `when.with_memories` may move it to an earlier year."""

    start: datetime
    end: datetime
    text: str
    kind: Kind
    yearless: bool = False

    def contains(self, moment: datetime) -> bool:
        return self.start <= moment < self.end


def resolve(family: str, text: str, base: datetime) -> DateSpan | None:
    """The span one matched phrase names, read from `base` (naive); None if the library cannot
    read it ("Feb 30")."""
    words = " ".join(text.split())
    if family in ABSOLUTE_DAYS:
        return _day_span(family, words, base)
    if family in ("month_year", "month"):
        return _month_span(words, base)
    if family == "year":
        anchor = _anchor(re.findall(_YEAR_DIGITS, words)[-1], base)
        return DateSpan(*_year_range(anchor), words, "range") if anchor else None
    if family == "weekend":
        return DateSpan(*_weekend(words.lower(), base), words, "range")
    if family == "weekday":
        return _weekday_span(words, base)
    if family in ("ago", "rolling", "unit"):
        return {"ago": _ago_span, "rolling": _rolling_span, "unit": _unit_span}[family](words, base)
    return _relative_day(family, words, base)


def resolve_offset(text: str, reference: DateSpan) -> DateSpan:
    """"the week before <day>", "two weeks after <day>", "the Sunday before <day>": a range that
    also keeps the named day, since what is told on a day is stored with that day's date."""
    words = " ".join(text.split())
    lower = words.lower()
    before = lower.endswith("before")
    weekday = re.search(_WEEKDAY, lower)
    if weekday:
        step = -1 if before else 1
        moment = reference.start if before else reference.end - DAY
        moment += step * DAY
        while moment.weekday() != _WEEKDAYS.index(weekday.group(0)):
            moment += step * DAY
        start, end = moment, moment + DAY
    elif "weekend" in lower:
        saturday = reference.start + timedelta(days=5 - reference.start.weekday())
        saturday += -7 * DAY if before else (0 * DAY if saturday >= reference.end else 7 * DAY)
        start, end = saturday, saturday + 2 * DAY
    else:
        counted = re.match(_COUNT + r"\s", re.sub(r"^the\s+", "", lower)) is not None
        count, unit, vague = _count_and_unit(re.sub(r"^the\s+", "1 ", lower))
        width = timedelta(days=_UNIT_DAYS[unit] * (3 if vague else 1))
        if not counted or count == 1:  # "the week before": the week right next to the day
            start = reference.start - width if before else reference.end
        else:  # "two weeks before": a window of one unit around that point
            point = reference.start + (-1 if before else 1) * count * timedelta(days=_UNIT_DAYS[unit])
            start = point - width / 2
        start, end = midnight(start), midnight(start + width)
    return DateSpan(min(start, reference.start), max(end, reference.end), f"{words} {reference.text}", "range",
                    reference.yearless)


# -- one family each ---------------------------------------------------------------------------


def _day_span(family: str, words: str, base: datetime) -> DateSpan | None:
    phrase = words
    if family == "ordinal_of":
        ordinal = re.match(r"the\s+(\S+)\s+of\s+", words, re.IGNORECASE)
        if ordinal is None:
            return None
        phrase = f"{_ORDINAL_DAYS[ordinal.group(1).lower()]} {words[ordinal.end():]}"
    phrase = re.sub(r"\b(?:the|of)\b|,", " ", phrase, flags=re.IGNORECASE)
    anchor = _anchor(" ".join(phrase.split()), base)
    if anchor is None:
        return None
    yearless = family not in ("iso", "slashed") and not re.search(_YEAR, words)
    return _day(anchor, words, yearless=yearless)


def _month_span(words: str, base: datetime) -> DateSpan | None:
    """"in April" is the most recent April up to this month (year-less); "last April" the one
    before this month, "next April" the one after it, "this April" this year's."""
    month = re.search(_MONTH, words, re.IGNORECASE)
    if month is None:
        return None
    year = re.search(_YEAR, words)
    found = re.match(r"(last|next|this)\s", words, re.IGNORECASE)
    relation = found.group(1).lower() if found else ""
    named_year = year.group(0) if year else str(base.year) if relation else ""
    anchor = _anchor(f"{month.group(0).rstrip('.')} {named_year}".strip(), base)
    if anchor is None:
        return None
    this_month = (base.year, base.month)
    if relation == "last" and (anchor.year, anchor.month) >= this_month:
        anchor = anchor.replace(year=anchor.year - 1)
    elif relation == "next" and (anchor.year, anchor.month) <= this_month:
        anchor = anchor.replace(year=anchor.year + 1)
    return DateSpan(*_month_range(anchor), words, "month", yearless=not (year or relation))


def _weekday_span(words: str, base: datetime) -> DateSpan | None:
    """"on Tuesday", "last Tuesday": the most recent Tuesday before today; "this Tuesday" the
    one in this week (Monday first); "next Tuesday" the coming one."""
    lower = words.lower()
    said = re.search(_WEEKDAY_SAID, lower)
    weekday = full_weekday(said.group(0)) if said else None
    if weekday is None:
        return None
    relation = re.search(r"\b(this|next)\s", lower)
    if relation and relation.group(1) == "this":
        anchor: datetime | None = midnight(base) + timedelta(days=_WEEKDAYS.index(weekday) - base.weekday())
    else:
        anchor = _anchor(f"{'next ' if relation else ''}{weekday}", base)
    return _day(anchor, words, part=_part(lower)) if anchor else None


def _relative_day(family: str, words: str, base: datetime) -> DateSpan | None:
    """"yesterday", "today's", "the day before yesterday", "this morning", "last night", "tonight"."""
    lower = words.lower()
    part = _part(lower)
    if family == "this_part":
        phrase, part = ("yesterday", "night") if lower.startswith("last") else ("today", part or "night")
    else:
        found = re.search(r"yesterday|today|tomorrow", lower)
        phrase = "the day before yesterday" if family == "day_before" or found is None else found.group(0)
    anchor = _anchor(phrase, base)
    return _day(anchor, words, part=part) if anchor else None


def _ago_span(words: str, base: datetime) -> DateSpan | None:
    """A day N days ago is that day; N weeks, months or years ago is a window of one unit
    centred on that point, and a vague count ("a few weeks ago") widens it to three units."""
    count, unit, vague = _count_and_unit(words)
    anchor = _anchor(f"{count} {unit}s ago", base)
    if anchor is None:
        return None
    if unit == "day" and not vague:
        return _day(anchor, words)
    width = _UNIT_DAYS[unit] * (3 if vague else 1)
    start = midnight(anchor) - timedelta(days=width // 2)
    kind: Kind = "week" if unit == "week" and not vague else "range"
    return DateSpan(start, start + timedelta(days=width), words, kind)


def _rolling_span(words: str, base: datetime) -> DateSpan | None:
    """"the past week", "the last 3 days": from that long ago up to the end of today."""
    tail = re.sub(r"^(?:the\s+)?(?:this\s+)?(?:past|last|previous)\s+", "", words, flags=re.IGNORECASE)
    counted = re.match(_COUNT + r"\s", tail, re.IGNORECASE) is not None
    count, unit, _ = _count_and_unit(tail if counted else f"1 {tail}")
    anchor = _anchor(f"{count} {unit}s ago", base)
    return DateSpan(midnight(anchor), midnight(base) + DAY, words, "range") if anchor else None


def _unit_span(words: str, base: datetime) -> DateSpan | None:
    """"last week", "this month", "next year": the calendar week (Monday first), month or year."""
    unit = words.split()[-1].lower()
    anchor = _anchor(re.sub(r"^previous", "last", words, flags=re.IGNORECASE), base)
    if anchor is None:
        return None
    if unit == "week":
        monday = midnight(anchor) - timedelta(days=anchor.weekday())
        return DateSpan(monday, monday + 7 * DAY, words, "week")
    if unit == "month":
        return DateSpan(*_month_range(anchor), words, "month")
    return DateSpan(*_year_range(anchor), words, "range")


def _weekend(lower: str, base: datetime) -> tuple[datetime, datetime]:
    """Saturday and Sunday. "the weekend" is the current one on a weekend, else the one just
    past; "last weekend" is always before this week's; "this"/"next" look ahead."""
    saturday = midnight(base) + timedelta(days=5 - base.weekday())  # this week's Saturday
    if lower.startswith(("last", "past", "previous")):
        saturday -= 7 * DAY
    elif lower.startswith("next"):
        saturday += 7 * DAY
    elif not lower.startswith("this") and base.weekday() < 5:
        saturday -= 7 * DAY
    return saturday, saturday + 2 * DAY


# -- small helpers -----------------------------------------------------------------------------


def _day(anchor: datetime, words: str, *, yearless: bool = False, part: str | None = None) -> DateSpan:
    start = midnight(anchor)
    if part is None:
        return DateSpan(start, start + DAY, words, "day", yearless)
    first, last = _PART_HOURS[part]
    return DateSpan(start + timedelta(hours=first), start + timedelta(hours=last), words, "part_of_day")


def _part(lower: str) -> str | None:
    found = re.search(_PART, lower)
    return found.group(0) if found else None


def _count_and_unit(words: str) -> tuple[int, str, bool]:
    """(count, unit, vague) of "3 days", "two weeks", "a few months"."""
    match = re.match(rf"({_COUNT})\s+(day|week|month|year)", words, re.IGNORECASE)
    if match is None:
        raise ValueError(f"no count and unit in {words!r}")
    count = " ".join(match.group(1).lower().split())
    unit = match.group(2).lower()
    if count in _VAGUE:
        return _VAGUE[count], unit, True
    return int(count) if count.isdigit() else _NUMBERS.get(count, 1), unit, False


def _month_range(anchor: datetime) -> tuple[datetime, datetime]:
    start = datetime(anchor.year, anchor.month, 1)
    return start, (start + 32 * DAY).replace(day=1)


def _year_range(anchor: datetime) -> tuple[datetime, datetime]:
    return datetime(anchor.year, 1, 1), datetime(anchor.year + 1, 1, 1)


def midnight(moment: datetime) -> datetime:
    return datetime(moment.year, moment.month, moment.day)


# -- the date library --------------------------------------------------------------------------


# Phrases whose reading moves with its base by whole weeks ("yesterday", "3 days ago", "last
# week", "next Tuesday": offsets in days and weekdays, never months or years) and whose date
# does not depend on the base's time of day. They are read from the same weekday of one
# reference week and moved back: the date library takes about 0.6 ms a phrase, and recall reads
# the phrases of hundreds of memories, each said on another day (at most 7 readings a phrase).
_WEEKLY = LazyPattern(r"(?:yesterday|today|tomorrow|the day before yesterday|[0-9]+ (?:day|week)s ago"
                      rf"|(?:last|this|next) week|(?:next )?{_WEEKDAY})", re.IGNORECASE)
_REFERENCE_WEEK = datetime(2001, 1, 1)  # a Monday


def _anchor(phrase: str, base: datetime) -> datetime | None:
    """The moment dateparser reads in `phrase`, relative to `base`, preferring the past; only
    its date is used (as `midnight` or a day's part)."""
    if not _WEEKLY.fullmatch(phrase):
        return _read_anchor(phrase, base)
    days = (midnight(base) - _REFERENCE_WEEK).days
    shift = timedelta(days=days - days % 7)
    found = _read_anchor(phrase, midnight(base) - shift)
    return None if found is None else found + shift


@functools.lru_cache(maxsize=512)
def _read_anchor(phrase: str, base: datetime) -> datetime | None:
    try:
        found: datetime | None = _parser(base).get_date_data(phrase).date_obj
    except (ValueError, OverflowError):
        return None
    return found


@functools.lru_cache(maxsize=8)
def _parser(base: datetime) -> Any:
    from dateparser.date import DateDataParser  # imported on the first date phrase only

    settings = {"RELATIVE_BASE": base, "PREFER_DATES_FROM": "past", "PREFER_DAY_OF_MONTH": "first",
                "RETURN_AS_TIMEZONE_AWARE": False}
    return DateDataParser(languages=["en"], settings=settings)
