"""Rules that read a date question into the date tool's arguments, for the forms people use:
today's date or weekday (and yesterday's, tomorrow's); N days, weeks, months or years from
today, ago, before or after a date ("in 3 weeks", "100 days ago", "10 days before
2026-04-01", "a 12 week course starting today ends when?"); the weekday of a date; the days
between two dates, until one or since one (in weeks when asked in weeks); how old someone
born on a date is; the date of a weekday ("next Friday", "last Saturday"), the days left in the
month or year, the days in a month, and whether a year is a leap year.

The message is read as question_text.normalize leaves it (number words in digits,
misspellings corrected) and its dates as the grounding package reads them (2026-04-10,
10 April 2026, April 10th, 2026, the first of January 2026, 10/04/2026 as day/month), with
Christmas, New Year's Day, Valentine's Day and Halloween by name. A day and month without a
year is left to the tool (--MM-DD): this year's, or the next one when it counts until it. A rule answers
only a question or a request about dates, or a message of a few words ("8 weeks from
today"); what no rule reads is left to the model."""

from __future__ import annotations

import calendar
import re
from typing import Any

from ..reading.values import extract
from ..reading.words import MONTHS, WEEKDAYS, letter_words
from .question_text import asks, normalize, spoken_years
from .weekday_rules import nth_weekday_question, weekday_count_question

_UNITS = {"day": "days", "week": "weeks", "fortnight": "weeks", "month": "months", "year": "years"}
_AMOUNT = re.compile(r"\b(\d{1,6}|a|an|1)\s*-?\s*(day|week|fortnight|month|year)s?\b")
_HOLIDAYS = {r"christmas\s+eve": (12, 24), r"christmas(?:\s+day)?|xmas": (12, 25),
             r"new\s+year'?s?\s+eve": (12, 31), r"new\s+year'?s?(?:\s+day)?": (1, 1),
             r"valentine'?s?(?:\s+day)?": (2, 14), r"halloween": (10, 31)}
_OPENERS = (r"what'?s?|which|when|how|tell\s+me|can\s+you|could\s+you|date|weekday|day|days|weeks|months|give|count|"
            r"is|was|will|does|did")  # "is it a leap year this year"
_NAMED_DAY = re.compile(rf"\b(?:(last|previous|past)\s+)?({'|'.join(WEEKDAYS)})\b")
# "the 15th" with no month, ending its clause ("how many days till the 15th?"), not "the 2nd Tuesday"
_ORDINAL_DAY = re.compile(r"\bthe\s+([1-9]|[12][0-9]|3[01])(?:st|nd|rd|th)\b"
                          r"(?=\s*(?:[?.!,;]|$|(?:and|or|to|until|till|at|this|then|please)\b))")
_PERIOD_END = re.compile(r"\b(?:end\s+of|last\s+day\s+of|left\s+(?:in|of)|remaining\s+in|rest\s+of)\s+(?:the|this)\s+"
                         r"(month|year)\b")
_PERIOD_START = re.compile(r"\b(?:start|beginning|(?:first|1st)\s+day)\s+of\s+(?:the|this)\s+(month|year)\b")
_DAY_OF_YEAR = re.compile(r"(?<!first\s)(?<!1st\s)(?<!last\s)\b(?:day|week)\s+of\s+the\s+year\b|\bweek\s+number\b|"
                          r"\bwhat\s+week\s+(?:is\s+it|are\s+we\s+in)\b")
_COUNTED_WEEKDAYS = re.compile(rf"\bhow\s+many\s+(?:{'|'.join(day + 's' for day in WEEKDAYS)}|"
                               r"weekends|weekdays|working\s+days|business\s+days)\b")
_DATE_OF_DAY_ASKED = re.compile(r"\bwhen\s+(?:is|was|will)\b|\bwhat(?:'s|\s+is|\s+was)?\s+(?:the\s+)?date\b|"
                                r"\bwhich\s+date\b|\bwhat(?:'s|\s+is|\s+was)\s+the\s+(?:last|first|1st)\s+day\b")
_MONTH_END = re.compile(rf"\b(?:left\s+in|remaining\s+in|end\s+of|last\s+day\s+of)\s+({'|'.join(MONTHS)})\b"
                        r"(?:,?\s+(?:of\s+|in\s+)?(\d{4})\b)?")
# "what is the last day of February 2028": the date of the day it names.
_DAY_OF_PERIOD_ASKED = re.compile(r"\b(?:what(?:'s|\s+is|\s+was|\s+will\s+be)|when\s+is)\s+the\s+(?:last|first|1st)\s+"
                                  r"day\s+of\b")
# Day N of a span whose first day is day 1 ("counting Feb 1 as day 1", "day 1 is March 3").
_DAY_ONE = re.compile(r"\bas\s+(?:the\s+)?(?:day\s+(?:1|one)|first\s+day)\b|\bday\s+(?:1|one)\s+(?:is|was|being)\b")
_DAY_N = re.compile(r"\b(?:the\s+)?(?:last\s+day|final\s+day|day\s+(\d{1,4}))\b")
_MONTH_LENGTH = re.compile(rf"\bhow\s+many\s+days\s+(?:are\s+(?:there\s+)?|does\s+|do\s+)?(?:in\s+)?"
                           rf"({'|'.join(MONTHS)})(?:\s+(?:of\s+)?(\d{{4}}))?\b")
_WEEKDAY_ASKED = re.compile(r"\b(?:weekday|day\s+of\s+(?:the\s+)?week|what\s+day|which\s+day)\b")
_DATE_ASKED = re.compile(r"\b(?:date|day|when|weekday|finish|end|ends|expire|expires|due)\b")
# "3 weeks back" goes back; "when I come back in 3 weeks" does not.
_BACK = re.compile(r"\b(?:ago|before|earlier|(?:days?|weeks?|months?|years?)\s+back|prior\s+to)\b")
_FORWARD = re.compile(r"\b(?:from|after|in|later|lasts?|starting|starts|course|takes|for)\b")


def date_question(message: str) -> dict[str, Any] | None:
    """The date tool's arguments for a date question, or None."""
    text = spoken_years(normalize(message).rstrip(" .!"))
    if not asks(text, _OPENERS):
        return None
    if (arguments := nth_weekday_question(text)) is not None:
        return arguments
    dates = _dates(text)
    if (arguments := weekday_count_question(text, dates)) is not None:
        return arguments
    amount = _amount(text)
    if amount is None and re.search(r"\d[\d.e+]*\s*(?:day|week|month|year)s?\b", text):
        return None  # a span of time it cannot read (1e20 days, 2.5 weeks): left to the model
    for rule in (_day_n, _calendar, _age, _between, _weekday, _shift, _today):
        if (arguments := rule(text, dates, amount)) is not None:
            return arguments
    return None


def _dates(text: str) -> list[str]:
    """The dates in `text`, in order: written dates, and holidays by name (not one written beside
    its date: "Halloween (Oct 31)" names one day); ISO, or --MM-DD when no year is written."""
    found = [(value.start, value.key) for value in extract(text, ("date",))
             if len(value.key) == 10 or value.key.startswith("--")]  # not a month and year alone
    holidays = [(match, month, day) for pattern, (month, day) in _HOLIDAYS.items()
                for match in re.finditer(rf"\b(?:{pattern})\b(?:\s+(?:of\s+)?(\d{{4}}))?", text)]
    for match, month, day in holidays:  # "new year's eve" is not also new year's day
        if not any(other is not match and other.start() <= match.start() and match.end() <= other.end()
                   and len(other[0]) > len(match[0]) for other, _, _ in holidays):
            year = f"{int(match[1]):04d}" if match[1] else "-"
            if (key := f"{year}-{month:02d}-{day:02d}") not in {written for _, written in found}:
                found.append((match.start(), key))  # "Halloween (Oct 31)" names one day
    if not found:  # a weekday beside a written date says which day that is ("... 2000-01-01? a Sunday")
        found += [(match.start(), ("last-" if match[1] else "") + match[2][:3])  # the date tool's fri, last-sat
                  for match in _NAMED_DAY.finditer(text)]
        found += [(match.start(), "sat") for match in re.finditer(r"\b(?:the|this)\s+weekend\b", text)]
    if not found:  # "till the 15th": the coming 15th of a month
        found += [(match.start(), f"nth-{int(match[1])}") for match in _ORDINAL_DAY.finditer(text)]
    found += [(match.start(), f"{match[1]}-end") for match in _PERIOD_END.finditer(text)]
    found += [(match.start(), f"{match[1]}-start") for match in _PERIOD_START.finditer(text)]
    for match in _MONTH_END.finditer(text):  # "left in March": its last day (February's depends on the year)
        month = MONTHS.index(match[1]) + 1
        if match[2] and int(match[2]) >= 1:
            named = int(match[2])
            found.append((match.start(), f"{named:04d}-{month:02d}-{calendar.monthrange(named, month)[1]:02d}"))
        elif month != 2:
            found.append((match.start(), f"--{month:02d}-{calendar.monthrange(2001, month)[1]:02d}"))
    found += [(two.start(), "day-" + two[1].split()[0])  # read by _weekday as two days from today
              for two in re.finditer(r"\bthe\s+day\s+(after\s+tomorrow|before\s+yesterday)\b", text)]
    return [key for _, key in sorted(set(found))]


def _calendar(text: str, dates: list[str], amount: tuple[int, str] | None) -> dict[str, Any] | None:
    """The days in a month ("how many days in April", "... does February 2028 have") and leap years."""
    if match := _MONTH_LENGTH.search(text):
        year = match[2] or "-"
        return {"operation": "month_days", "date": f"{year}-{MONTHS.index(match[1]) + 1:02d}-01"}
    if _DAY_OF_YEAR.search(text) and amount is None and len(dates) <= 1:
        return {"operation": "day_of_year", "date": dates[0] if dates else "today"}
    if re.search(r"\bleap\s+years?\b", text) and amount is None:
        years = re.findall(r"\b\d+\b", text)
        if len(years) == 1 and len(years[0]) == 4 and years[0] != "0000":
            return {"operation": "leap_year", "date": f"{years[0]}-01-01"}
        if not years and (said := re.search(r"\b(this|next|last)\s+year\b", text)):
            offset = {"this": 0, "next": 1, "last": -1}[said[1]]
            return {"operation": "leap_year", "date": "today", **({"amount": offset} if offset else {})}
    return None  # "is 10000 a leap year": not a year the tool can be sure of


def _amount(text: str) -> tuple[int, str] | None:
    """The one span of time the question names ("3 weeks", "a fortnight"), as (amount, unit)."""
    matches = [match for match in _AMOUNT.finditer(text) if not re.match(r"\d{4}-", text[match.start():])]
    if len(matches) != 1:
        return None
    match = matches[0]
    count = 1 if match[1] in ("a", "an") else int(match[1])
    return count * (2 if match[2] == "fortnight" else 1), _UNITS[match[2]]


def _age(text: str, dates: list[str], amount: tuple[int, str] | None) -> dict[str, Any] | None:
    """How old someone born on a date is today, or will be: the age they turn this year (or in
    a named year) is their age on its last day; on a second date, their age that day."""
    asked = re.search(r"\bhow\s+old\b|\bage\b|\byears\s+old\b"  # or a sentence left open for it: "so I am now?"
                      r"|\b(?:am\s+i|i\s+am|i'm|is\s+s?he|s?he\s+is)\s+(?:now|today)\W*$", text)
    if not dates or "born" not in text or not asked:
        return None
    if len(dates) == 2 and re.search(r"\bborn\b(?:(?!\bon\b).)*\bon\b.*\bon\b", text):
        return {"operation": "age", "date": dates[0], "other": dates[1]}  # born on X ... be on Y
    if not re.search(r"\b(?:will|turn|turns|turning)\b", text):
        other_day = amount is not None or re.search(r"\b(?:next|last|ago|from\s+now)\b", text)
        return {"operation": "age", "date": dates[0]} if len(dates) == 1 and not other_day else None
    turns = re.search(r"\bturns?\b(?:\s+in)?\s+(?:(this)\s+year|(\d{4}))\b|\bturn(?:s|ing)?\b.*\b(this)\s+year\b",
                      text)
    if len(dates) != 1 or turns is None or amount is not None:
        return None  # "how old will she be next year": on which day of it, the question does not say
    year = turns[2]
    return {"operation": "age", "date": dates[0], "other": f"{year}-12-31" if year else "year-end"}


def _between(text: str, dates: list[str], amount: tuple[int, str] | None) -> dict[str, Any] | None:
    counted = re.search(r"\bhow\s+(?:many|long)\b(?:\s+(?:full\s+|whole\s+|complete\s+|calendar\s+)?"
                        r"(days|weeks|months|years))?|^(days|weeks|months)\b|"
                        r"\b(days|weeks|months)\s+(?:until|till|between|since|from|to|left)\b", text)
    if counted is None or (amount is not None and len(dates) != 2) or _COUNTED_WEEKDAYS.search(text):
        return None  # how many Fridays until ...: not a count of days
    if re.search(r"\bhow\s+(?:many|long)\s+(?:hours|minutes|seconds)\b", text) or (
            "born" in text and re.search(r"\b(?:until|till|before|birthday)\b", text)):
        return None  # hours until Friday depend on the time; "months until my 40th birthday", not since the birth
    said_in = re.search(r"\bin\s+(days|weeks|months|years)\s*\??\s*$", text)  # "how long ago was it in years?"
    unit = next((group for group in counted.groups() if group), said_in[1] if said_in else "days")
    counting = {"unit": unit, **({"inclusive": True} if unit == "days" and _INCLUSIVE.search(text) else {})}
    if len(dates) == 2:
        return {"operation": "between", "date": dates[0], "other": dates[1], **counting}
    if len(dates) != 1:
        return None
    if re.search(r"\b(?:ago|since|passed|elapsed|old|born)\b", text):  # "how many days old is someone born ..."
        return {"operation": "between", "date": dates[0], "other": "today", **counting}
    return {"operation": "between", "date": "today", "other": dates[0], **counting}


# "counting both days", "both dates included", "inclusive": the first day counts too
_INCLUSIVE = re.compile(r"\b(?:inclusive(?:ly)?|counting both(?:\s+(?:the\s+)?(?:days|dates|ends))?|including both"
                        r"|both (?:days|dates|ends) (?:included|inclusive|counted|count))\b", re.IGNORECASE)


def _weekday(text: str, dates: list[str], amount: tuple[int, str] | None) -> dict[str, Any] | None:
    if len(dates) != 1 or amount is not None:
        return None
    if dates[0].startswith("day-"):  # the day after tomorrow: the day two days from today
        return {"operation": "add", "date": "today", "amount": 2 if dates[0] == "day-after" else -2, "unit": "days"}
    named = not re.match(r"\d|-", dates[0]) or _DAY_OF_PERIOD_ASKED.search(text)  # next Friday: which date?
    if _WEEKDAY_ASKED.search(text) or (named and _DATE_OF_DAY_ASKED.search(text)):
        return {"operation": "weekday", "date": dates[0]}
    return None


def _day_n(text: str, dates: list[str], amount: tuple[int, str] | None) -> dict[str, Any] | None:
    """Day N (or the last day of an N-day span) of a span that counts its first date as day 1:
    the date tool's day_n ("a 90-day challenge from February 1, counting Feb 1 as day 1")."""
    if not _DAY_ONE.search(text) or len(set(dates)) != 1:
        return None
    asked = list(_DAY_N.finditer(_DAY_ONE.sub(" ", text)))
    numbers = {int(match[1]) for match in asked if match[1]}
    if not asked or len(numbers) > 1 or (not numbers and (amount is None or amount[1] != "days")):
        return None  # which day of the span, the question does not say
    day = numbers.pop() if numbers else amount[0] if amount is not None else 0
    return {"operation": "day_n", "date": dates[0], "amount": day} if day >= 1 else None


def _shift(text: str, dates: list[str], amount: tuple[int, str] | None) -> dict[str, Any] | None:
    terse = len(letter_words(text)) <= 4  # "8 weeks from today"
    if amount is None or len(dates) > 1 or not (_DATE_ASKED.search(text) or terse):
        return None
    count, unit = amount
    sign = -1 if _BACK.search(text) else 1
    if sign > 0 and not _FORWARD.search(text) and not re.search(r"\bnow\b|\btoday\b", text):
        return None
    anchor = dates[0] if dates else _relative_anchor(text)
    return {"operation": "add", "date": anchor, "amount": sign * count, "unit": unit}


def _relative_anchor(text: str) -> str:
    for word in ("tomorrow", "yesterday"):
        if re.search(rf"\b(?:from|after|before|since)\s+{word}\b", text):
            return word
    return "today"


def _today(text: str, dates: list[str], amount: tuple[int, str] | None) -> dict[str, Any] | None:
    if dates or amount is not None or re.search(r"\bdate\s+(?:of|for|when|that|on)\b|\bnext\b|\blast\b", text):
        return None  # "the date of Easter", "the next full moon": some other day
    for word in ("yesterday", "tomorrow"):
        if re.search(rf"\b{word}\b", text) and _DATE_ASKED.search(text.replace(word, "")):
            return {"operation": "weekday", "date": word}
    if re.search(r"\b(?:date|day|weekday)\b", text) and re.search(
            r"\btoday\b|\bis\s+it\b|\bwhat(?:'s|\s+is)\s+the\s+date\b|^(?:the\s+)?date$", text):
        return {"operation": "today"}
    return None
