"""What a reading leaves out of a question (issue 42): a reason to say "I'm not sure" rather
than answer. A rule that reads part of a question answers some other question: "What date is
the second Tuesday of April?" read as "which Tuesday" drops "second" and "April"; "how many
users have never done anything?" read as a count of activities drops "never".

- Dates: the forms no date rule reads whole (a count of working days, the nth weekday of a
  month, how many Mondays, a week number, an age still to come) are said back and asked about, never answered by
  the part a rule does read.
- SQL: a question whose structured query lacks a part of it (a negation the query does not
  hold, an "or" the query reads as "and", a range or share no query form writes, a number
  no condition uses, "which city has ..." with no grouping) gets the query shown and "I'm not
  sure this answers your question".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ..reading.words import MONTHS, WEEKDAYS

_DAYS = "|".join(WEEKDAYS)
_ORDINAL = r"first|second|third|fourth|fifth|last|1st|2nd|3rd|4th|5th"
_DATE_FORMS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\b(?:working|business|work)[\s-]?days?\b|\bweek[\s-]?days\b", re.IGNORECASE),
     "a count of working days"),
    (re.compile(rf"\b(?:{_ORDINAL})\s+(?:{_DAYS})\s+(?:of|in)\b", re.IGNORECASE), "the nth weekday of a month"),
    (re.compile(rf"\bhow\s+many\s+(?:{_DAYS})s\b", re.IGNORECASE), "a count of one weekday"),
    (re.compile(r"\bweek\s+(?:number|no\b)|\b(?:which|what)\s+week\s+(?:is|of)\b", re.IGNORECASE), "a week number"),
    (re.compile(r"\bhow\s+old\s+will\b", re.IGNORECASE), "an age still to come"),  # the age rule reads today's
)
_NEGATION = re.compile(r"\b(?:never|without|none|no|not|except|excluding|other\s+than)\b|n't\b", re.IGNORECASE)
_OR = re.compile(r"\b\w+\s+or\s+\w+", re.IGNORECASE)
_SQL_NEVER_READ: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\b(?:first|second|last)\s+half\b|\bquarter\b|\b(?:teens|twenties|thirties|forties|fifties|"
                r"sixties|seventies|eighties|nineties)\b", re.IGNORECASE), "a range"),
    (re.compile(r"\b(?:percent(?:age)?|share|proportion|ratio|fraction)\b|%", re.IGNORECASE), "a share"),
    (re.compile(r"\b(?:in)?active\b", re.IGNORECASE), "what active means"),
)
_WHICH = re.compile(r"^\s*(?:which|what)\s+\w+\s+(?:has|have|had|is|was)\s+the\b", re.IGNORECASE)
_MONTH_NAMES = re.compile(r"\b(?:" + "|".join(MONTHS) + r")\b", re.IGNORECASE)


def date_left_out(message: str) -> str | None:
    """The part of a date question that no date rule reads, or None."""
    return next((part for pattern, part in _DATE_FORMS if pattern.search(message)), None)


def sql_left_out(message: str, sql: str, parameters: Sequence[Any]) -> str | None:
    """The part of a question its structured query (`sql` with `parameters`) leaves out, or None."""
    upper = sql.upper()
    if _NEGATION.search(message) and " NOT " not in upper and "!=" not in upper and "<>" not in upper:
        return "the negation"
    if _OR.search(message) and " OR " not in upper and " IN (" not in upper:
        return 'the "or"'
    if part := next((part for pattern, part in _SQL_NEVER_READ if pattern.search(message)), None):
        return part
    if _WHICH.search(message) and "GROUP BY" not in upper and "ORDER BY" not in upper:
        return "which one it asks for"
    held = " ".join(str(value) for value in parameters) + " " + sql
    numbers = re.findall(r"(?<![\w.])\d+(?:\.\d+)?\b", _MONTH_NAMES.sub(" ", message))
    if missing := [number for number in numbers if number not in held]:
        return f"the condition on {missing[0]}"
    return None


def sql_text(sql: str, parameters: Sequence[Any]) -> str:
    """`sql` with its parameters written in, for showing."""
    values = iter(parameters)
    return re.sub(r"\?", lambda _: repr(next(values, "?")), sql)
