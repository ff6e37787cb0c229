"""Rules that read the weekday forms of a date question (issue 42): the nth weekday of a month
("the second Tuesday of April 2026", "the last Friday of this month") and how many of one
weekday, or of working days, fall in a span ("how many Mondays are left this month", "working
days from 16 March to 27 March 2026"). Each reads the whole question or nothing: a form with a
part it cannot place ("next month", "until the deadline", "was" with no year) is left to
tools/coverage.py, which says it back and asks.

The rules take the text as question_text.normalize leaves it ("second" is "2nd") and the dates
date_rules.py found in it, in order."""

from __future__ import annotations

import calendar
import re
from typing import Any

from ..reading.words import MONTHS, WEEKDAYS

_DAY_NAMES = "|".join(WEEKDAYS)
_MONTH_NAMES = "|".join(MONTHS)
_NTH = {"1st": 1, "2nd": 2, "3rd": 3, "4th": 4, "5th": 5, "last": -1}
_NTH_WEEKDAY = re.compile(rf"\b(1st|2nd|3rd|4th|5th|last)\s+({_DAY_NAMES})\s+(?:of|in)\s+(?:the\s+)?"
                          rf"(?:({_MONTH_NAMES})(?:\s+(?:of\s+)?(\d{{4}}))?|(this)\s+month)\b")
_COUNTED = re.compile(rf"\b(?:how\s+many|count\s+(?:the\s+)?)\s*(?:more\s+|other\s+|remaining\s+)?"
                      rf"(?:({_DAY_NAMES})s|(working\s+days|business\s+days|"
                      r"work\s*days|weekdays))\b")
_LEFT_IN_YEAR = re.compile(r"\b(?:left|remaining|still\s+to\s+come)\s+in\s+(\d{4})\b")
_LEFT = re.compile(r"\b(?:left|remaining|still\s+to\s+come)\s+(?:in\s+|of\s+)?(?:the|this)\s+(month|year)\b|"
                   r"\b(?:until|till|to|before)\s+the\s+end\s+of\s+(?:the|this)\s+(month|year)\b|"
                   r"\brest\s+of\s+(?:the|this)\s+(month|year)\b")
_WHOLE = re.compile(rf"\b(?:in|during|does|do)\s+(?:(this)\s+(month|year)|({_MONTH_NAMES})"
                    rf"(?:\s+(?:of\s+)?(\d{{4}}))?)\b")
_SPAN = re.compile(r"\b(?:from|between)\b.*\b(?:to|and|until|till|through)\b")
_UNTIL = re.compile(r"\b(?:until|till|before|between\s+now\s+and)\b")
_FROM = re.compile(r"\b(?:from|since|after)\b(?!\s+(?:today|now|tomorrow)\b)")


def nth_weekday_question(text: str) -> dict[str, Any] | None:
    """The date tool's arguments for "the nth weekday of a month", or None. A month without
    a year is its coming one (the tool says which year); "was" with no year is not read."""
    match = _NTH_WEEKDAY.search(text)
    if match is None or len(_NTH_WEEKDAY.findall(text)) != 1 or re.search(r"\bhow\s+(?:many|long|far)\b", text):
        return None  # "how many days until the second Friday of May" asks for a count, not the date
    if match[5]:
        date = "month-start"
    elif match[4]:
        date = f"{match[4]}-{MONTHS.index(match[3]) + 1:02d}-01"
    elif re.search(r"\b(?:was|were|did)\b", text):
        return None  # a month gone by, in a year the question does not say
    else:
        date = f"--{MONTHS.index(match[3]) + 1:02d}-01"
    return {"operation": "nth_weekday", "date": date, "amount": _NTH[match[1]], "weekday": match[2][:3]}


def weekday_count_question(text: str, dates: list[str]) -> dict[str, Any] | None:
    """The date tool's arguments for "how many Mondays / working days" in a span the question
    names whole, or None."""
    counted = _COUNTED.search(text)
    if counted is None:
        return None
    weekday = counted[1][:3] if counted[1] else "workday"
    # each day once: "until 1 April, 1 April also counted" names one day twice
    written = list(dict.fromkeys(date for date in dates if re.match(r"\d{4}-|--", date)))
    span = _span(text, written)
    if span is None:
        return None
    start = "tomorrow" if span[0] == "today" and _NOT_TODAY.search(text) else span[0]  # "not counting today"
    return {"operation": "count_weekdays", "date": start, "other": span[1], "weekday": weekday}


# "not counting today", "excluding today", "after today", "from tomorrow": the count starts tomorrow
_NOT_TODAY = re.compile(r"\b(?:not\s+(?:counting|including)|excluding|without|except)\s+today\b"
                        r"|\bafter\s+today\b|\bfrom\s+tomorrow\b", re.IGNORECASE)


def _span(text: str, written: list[str]) -> tuple[str, str] | None:
    """The first and last day of the span a count names: two written dates, from today until
    a written date, what is left of this month or year, or a whole month; None for no span or
    for two that disagree."""
    left, whole = _LEFT.search(text), _WHOLE.search(text)
    if (in_year := _LEFT_IN_YEAR.search(text)) and not written and not left:
        return "today", f"{in_year[1]}-12-31"  # "how many Saturdays are left in 2026"
    if written and (left or whole):
        return None
    if len(written) == 2:
        first, last = written
        if first.startswith("--") and not last.startswith("--"):
            first = last[:4] + first[1:]  # "from 16 March to 27 March 2026": the same year
        return (first, last) if _SPAN.search(text) else None
    if len(written) == 1:
        return ("today", written[0]) if _UNTIL.search(text) and not _FROM.search(text) else None
    if left:  # "left in this month" also holds "in this month": what is left is meant
        return "today", f"{left[1] or left[2] or left[3]}-end"
    if whole and whole[1]:
        return f"{whole[2]}-start", f"{whole[2]}-end"
    if whole and whole[4]:
        month, year = MONTHS.index(whole[3]) + 1, int(whole[4])
        return f"{year}-{month:02d}-01", f"{year}-{month:02d}-{calendar.monthrange(year, month)[1]:02d}"
    return None  # a month without its year, or no span at all
