"""The values a sentence asserts, found and normalized so that two spellings of one value
compare equal: numbers, dates, weekdays, times of day and names.

Definitions (docs/tools.md repeats them):

- **number**: digits with an optional sign, thousands commas (1,234) and a decimal part
  (12.60), or an exponent (1e20); or number words from "two" up ("forty-five", "two hundred
  and ten"), read by text2num. Its key is the value written plainly without trailing zeros,
  and without its sign (12.60, 12.6 and -12.6 share the key "12.6"; a sign is how a sentence
  says "before" or "ago" as often as a value). Digits right after a letter, `_` or `@` are part
  of a name (user0021, A12), not a number; a letter after the digits does not stop a number
  (5km, 10th). The digits of a date or a time are not numbers of their own.
- **date**: 2026-04-10; 10 April 2026, 10th of April 2026, April 10, 2026 (month names in
  full or as three letters, a weekday before it allowed); 10/04/2026 (read both ways). Its key
  is the ISO date. A day and month without a year (April 10, 10 April) has the key --04-10,
  and a month with a year (April 2026) 2026-04.
- **weekday**: Monday ... Sunday (or Mon ... Sun before a date); key the full lower-case name.
- **time**: 18:30, 9:05 (hours and minutes, optional :seconds); key HH:MM.
- **name**: an e-mail address; a word that mixes letters and digits (user0021, A12); a run
  of capitalized words that does not open a sentence (New York in "I moved to New York"),
  other than I, month and weekday names. Key: the words in lower case.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Literal

from .words import MONTHS as MONTH_NAMES
from .words import WEEKDAYS as WEEKDAY_NAMES

Kind = Literal["number", "date", "weekday", "time", "name"]
KINDS: tuple[Kind, ...] = ("number", "date", "weekday", "time", "name")


@dataclass(frozen=True)
class Value:
    """One value in a text: its kind, the normalized key it compares by, and the text as
    written (after number words were turned into digits)."""

    kind: Kind
    key: str
    text: str
    start: int = field(default=0, compare=False)  # where it starts in the text read (number words in digits)


MONTHS = {name: number for number, name in enumerate(MONTH_NAMES, 1)}
MONTHS |= {name[:3]: number for number, name in enumerate(MONTH_NAMES, 1)}
MONTHS["sept"] = 9
WEEKDAYS = {name: index for index, name in enumerate(WEEKDAY_NAMES)}
_SHORT_DAYS = {name[:3]: index for index, name in enumerate(WEEKDAY_NAMES)}

_MONTH = r"(?P<month>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>\d{4})"
_DATE_FORMS = [
    re.compile(r"(?<![\d-])(?P<year>\d{4})-(?P<mon>\d{1,2})-(?P<day>\d{1,2})(?![\d-])"),
    re.compile(rf"\b{_DAY}(?:\s+of)?\s+{_MONTH},?\s+{_YEAR}\b", re.I),
    re.compile(rf"\b{_MONTH}\s+{_DAY},?\s+{_YEAR}\b", re.I),
    re.compile(r"(?<![\d/])(?P<a>\d{1,2})/(?P<b>\d{1,2})/(?P<year>\d{4})(?![\d/])"),
    re.compile(rf"\b{_DAY}(?:\s+of)?\s+{_MONTH}\b", re.I),
    re.compile(rf"\b{_MONTH}\s+{_DAY}\b(?!:)", re.I),
    re.compile(rf"\b{_MONTH},?\s+{_YEAR}\b", re.I),
]
_MONTH_WORDS = "|".join(sorted(MONTHS, key=len, reverse=True))
_FIRST_OF_MONTH = re.compile(
    rf"\b(?:(?P<before>{_MONTH_WORDS})\s+first|first(?P<after>(?:\s+of)?\s+(?:{_MONTH_WORDS})))\b", re.I)
_TIME = re.compile(r"(?<![\d:.])(?P<h>[01]?\d|2[0-3]):(?P<m>[0-5]\d)(?::[0-5]\d)?(?![\d:])")
_WEEKDAY = re.compile(r"\b(" + "|".join(WEEKDAYS) + r")\b", re.I)
_SHORT_WEEKDAY = re.compile(r"\b(" + "|".join(_SHORT_DAYS) + r")\b,?\s+(?=\d)", re.I)
_NUMBER = re.compile(r"(?<![\w@.])(?<![\w@.]-)[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:e[-+]?\d+(?![a-z]))?(?![\d])",
                     re.I)
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_MIXED = re.compile(r"\b[A-Za-z_][\w-]*\d[\w-]*\b")
_CAPITALIZED = re.compile(r"\b[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*")
_SENTENCE_START = re.compile(r"(?:^|[.!?:;\"(]\s*|\n\s*)$")
_NOT_NAMES = {"i", "i'm", "i've", "i'd", "i'll", *MONTHS, *WEEKDAYS}


def number_key(text: str) -> str | None:
    """The key of a written number (commas, sign and trailing zeros dropped), or None."""
    try:
        value = abs(Decimal(text.replace(",", "")))
    except InvalidOperation:
        return None
    if not value.is_finite():
        return None
    if value == value.to_integral_value():
        return str(int(value)) if value.adjusted() < 400 else format(value.normalize(), "E")
    return format(value.normalize(), "f")


def date_key(year: int | None, month: int, day: int | None) -> str | None:
    """The key of a date or a part of one: YYYY-MM-DD, --MM-DD or YYYY-MM; None when no such
    day exists."""
    if day is None:
        return f"{year:04d}-{month:02d}" if year is not None and 1 <= month <= 12 else None
    try:
        dt.date(year if year is not None else 2000, month, day)  # 2000: a leap year, so --02-29 exists
    except ValueError:
        return None
    return f"{year:04d}-{month:02d}-{day:02d}" if year is not None else f"--{month:02d}-{day:02d}"


def words_to_digits(text: str, threshold: int = 2) -> str:
    """`text` with number words written in digits ("forty-five" -> 45), by text2num; a lone
    number word below `threshold` stays a word (by default "one" and "zero": in an answer
    they are more often "one of them" than a count)."""
    if not re.search(r"[a-z]", text, re.I):
        return text
    from text_to_num import alpha2digit

    text = _FIRST_OF_MONTH.sub(_first, text)  # the one ordinal under the threshold that dates use
    return str(alpha2digit(text, "en", threshold=threshold))


def _first(match: re.Match[str]) -> str:
    return f"{match['before']} 1st" if match["before"] else f"1st{match['after']}"


def _mask(text: str, start: int, end: int) -> str:
    return text[:start] + " " * (end - start) + text[end:]


def _date_match(match: re.Match[str]) -> list[str]:
    parts = match.groupdict()
    year = int(parts["year"]) if parts.get("year") else None
    if parts.get("a"):  # 10/04/2026: day/month and month/day
        a, b = int(parts["a"]), int(parts["b"])
        return [key for key in {date_key(year, b, a), date_key(year, a, b)} if key]
    month = int(parts["mon"]) if parts.get("mon") else MONTHS[parts["month"].lower()]
    day = int(parts["day"]) if parts.get("day") else None
    key = date_key(year, month, day)
    return [key] if key else []


_MIXED_NUMBER = re.compile(r"(?<![\d.,/])(\d+)\s+and\s+(?:a\s+|an\s+|one\s+)?(1/2|1/4|3/4|half|quarter)\b(?!\s+of\b)")
_MIXED_PARTS = {"1/2": 0.5, "half": 0.5, "1/4": 0.25, "quarter": 0.25, "3/4": 0.75}


def mixed_numbers(text: str) -> str:
    """A whole number and a fraction as one number: "32 and 1/2" (as "thirty-two and a half" is
    written in digits) is 32.5, "2 and a quarter" 2.25; not "2 and a half of the cake"."""
    return _MIXED_NUMBER.sub(lambda m: f"{int(m[1]) + _MIXED_PARTS[m[2]]:g}", text)


def extract(text: str, kinds: tuple[Kind, ...] = KINDS) -> list[Value]:
    """Every value of `kinds` in `text`, in the order: dates, times, weekdays, names, numbers
    (each found in what the ones before it left)."""
    found: list[Value] = []
    rest = mixed_numbers(words_to_digits(text))
    for form in _DATE_FORMS:
        for match in form.finditer(rest):
            keys = _date_match(match)
            if keys:
                found += [Value("date", key, match.group(), match.start()) for key in keys]
                rest = _mask(rest, match.start(), match.end())
    for match in _TIME.finditer(rest):
        found.append(Value("time", f"{int(match['h']):02d}:{match['m']}", match.group(), match.start()))
        rest = _mask(rest, match.start(), match.end())
    for match in _WEEKDAY.finditer(rest):
        found.append(Value("weekday", match[1].lower(), match.group(), match.start()))
    for match in _SHORT_WEEKDAY.finditer(rest):
        found.append(Value("weekday", WEEKDAY_NAMES[_SHORT_DAYS[match[1].lower()]], match[1],
                           match.start()))
    names, rest = _names(rest)
    found += names
    for match in _NUMBER.finditer(rest):
        key = number_key(match.group())
        if key is not None:
            found.append(Value("number", key, match.group(), match.start()))
    return sorted((value for value in found if value.kind in kinds), key=lambda value: value.start)


def _names(text: str) -> tuple[list[Value], str]:
    """The names in `text`, and `text` with e-mail addresses and mixed words masked (so their
    digits are not read as numbers)."""
    found: list[Value] = []
    for pattern in (_EMAIL, _MIXED):
        for match in pattern.finditer(text):
            found.append(Value("name", match.group().lower(), match.group(), match.start()))
            text = _mask(text, match.start(), match.end())
    for match in _CAPITALIZED.finditer(text):
        words = match.group().split()
        if _SENTENCE_START.search(text[: match.start()]):
            words = words[1:]  # the first word of a sentence is capitalized whatever it is
        while words and words[0].lower() in _NOT_NAMES:
            words = words[1:]
        if words and not all(word.lower() in _NOT_NAMES for word in words):
            found.append(Value("name", " ".join(words).lower(), " ".join(words), match.start()))
    return found, text


def weekday_of(key: str) -> str | None:
    """The weekday (key) of a full ISO date key, or None for a partial one."""
    try:
        return WEEKDAY_NAMES[dt.date.fromisoformat(key).weekday()]
    except ValueError:
        return None
