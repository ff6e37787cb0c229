"""What a reading leaves out of a question (issue 42): a reason to say "I'm not sure" rather
than answer. A rule that reads part of a question answers some other question: "What date is
the second Tuesday of April?" read as "which Tuesday" drops "second" and "April"; "how many
users have never done anything?" read as a count of activities drops "never".

- Dates: the forms no date rule reads whole (a count of working days, the nth weekday of a
  month, how many Mondays, a week number, an age still to come) are said back and asked about, never answered by
  the part a rule does read.
- Numbers: a question read by rule into a calculation or a date call that leaves one of its
  numbers out ("My daughter is 9 ... what is 56 divided by 8", "the second Tuesday of April"
  read as "Tuesday") gets the reading said back and asked about: a quantity the answer ignores
  is a reason to doubt it, whether the rule misread the question or the number was only context.
- SQL: a question whose structured query lacks a part of it (a negation the query does not
  hold, an "or" the query reads as "and", a range or share no query form writes, a number
  no condition uses, "which city has ..." with no grouping) gets the query shown and "I'm not
  sure this answers your question".
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from decimal import Decimal, InvalidOperation
from typing import Any

from ..reading.values import Value
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
_SCALES = frozenset(Decimal(10) ** power for power in (3, 6, 9, 12))
_MONTH_NAMES = re.compile(r"\b(?:" + "|".join(MONTHS) + r")\b", re.IGNORECASE)


def date_left_out(message: str) -> str | None:
    """The part of a date question that no date rule reads, or None."""
    return next((part for pattern, part in _DATE_FORMS if pattern.search(message)), None)


def unused_numbers(numbers: Sequence[Value], arguments: Mapping[str, Any]) -> list[str]:
    """The message's `numbers` (the reading's, dates apart) that a rule's call with `arguments`
    does not use, as written; a percentage counts as used as a fraction too ("25%" as 0.25),
    and "1 million" (read as 1 and 1000000) as one number."""
    held = {_decimal(found) for found in re.findall(r"\d+(?:\.\d+)?", json.dumps(dict(arguments)))}
    unused = []
    for text, number in _scaled(numbers):
        if number is not None and number not in held and (number / 100).normalize() not in held:
            unused.append(text)
    return list(dict.fromkeys(unused))


def _scaled(numbers: Sequence[Value]) -> list[tuple[str, Decimal | None]]:
    """The numbers as (text, value), a number followed at once by a scale word's number
    ("2.5 million": 2.5 then 1000000) taken as their product."""
    found: list[tuple[str, Decimal | None]] = []
    skip = False
    for at, value in enumerate(numbers):
        after = numbers[at + 1] if at + 1 < len(numbers) else None
        number = _decimal(value.key)
        if skip:
            skip = False
            continue
        scale = _decimal(after.key) if after is not None else None
        if (number is not None and after is not None and scale in _SCALES
                and after.start - value.start - len(value.text) <= 1):
            found.append((f"{value.text} x {after.text}", (number * scale).normalize()))
            skip = True
        else:
            found.append((value.text, number))
    return found


def _decimal(text: str) -> Decimal | None:
    try:
        return Decimal(text).normalize()
    except InvalidOperation:
        return None


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
