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

import itertools
import json
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from decimal import Decimal, InvalidOperation
from typing import Any

from ..reading.clauses import QUESTION_WORD, asking_sentence
from ..reading.values import Value, extract, words_to_digits
from ..reading.words import MONTHS, WEEKDAYS
from .date_anchors import anchor_left_out
from .question_text import normalize, spoken_years

_DAYS = "|".join(WEEKDAYS)
_ORDINAL = r"first|second|third|fourth|fifth|last|1st|2nd|3rd|4th|5th"
# Each form, what it asks for, and the date operation whose reading covers it whole.
_DATE_FORMS: tuple[tuple[re.Pattern[str], str, str], ...] = (
    (re.compile(r"\b(?:working|business|work)[\s-]?days?\b|\bweek[\s-]?days\b", re.IGNORECASE),
     "a count of working days", "count_weekdays"),
    (re.compile(rf"\b(?:{_ORDINAL})\s+(?:{_DAYS})\s+(?:of|in|(?:this|next|last)\s+month)\b", re.IGNORECASE),
     "the nth weekday of a month", "nth_weekday"),
    (re.compile(rf"\b(?:first|next|last)\s+(?:{_DAYS})\s+(?:after|before|following)\b", re.IGNORECASE),
     "the weekday after or before a date", "-"),
    (re.compile(r"\bhow\s+many\s+(?:hours|minutes|seconds)\b", re.IGNORECASE), "a count of hours or minutes", "-"),
    (re.compile(rf"\b(?:how\s+many|count\s+(?:the\s+)?)\s*(?:more\s+|other\s+|remaining\s+)?(?:{_DAYS})s\b",
                re.IGNORECASE), "a count of one weekday",
     "count_weekdays"),
    (re.compile(r"\bhow\s+many\s+(?:weekends|holidays|bank\s+holidays|public\s+holidays)\b", re.IGNORECASE),
     "a count of weekends or holidays", "-"),
    (re.compile(r"\bweek\s+(?:number|no\b)|\b(?:which|what)\s+week\s+(?:is|of)\b", re.IGNORECASE), "a week number",
     "day_of_year"),
    (re.compile(r"\b(?:not\s+(?:counting|including)|excluding|except(?:\s+for)?|without\s+counting|leaving\s+out)\s+"
                r"(?!today\b|(?:any|those|ones|the\s+ones)\s+(?:that|which)\s+(?:have\s+)?(?:already\s+)?(?:gone|passed))\w"
                r"|\bexclusive(?:ly)?\b", re.IGNORECASE),  # "not counting any that have already gone by": left
     "days left out of the count", "-"),  # "not counting the first day", "excluding both ends": only today is read
    (re.compile(r"\bday\s+(?:number|no\b)|\bnumber\s+day\b|\bday\s+of\s+the\s+year\b", re.IGNORECASE),
     "the day of the year", "day_of_year"),  # "whats todays day number", not answered by "Today is ..."
    (re.compile(r"\bhow\s+old\s+(?:will|would)\b(?!.*\btoday\b)", re.IGNORECASE), "an age still to come", "age"),
    (re.compile(r"\bhow\s+many\s+(?:days|weeks|months)\s+old\b|\b(?:days|weeks|months)\s+old\s+(?:is|am|are|was|will)\b",
                re.IGNORECASE), "an age in days, weeks or months", "between"),  # not the years of "age"
    (re.compile(r"\b(?:next|last|previous|coming)\s+leap\s+years?\b", re.IGNORECASE),
     "the next or last leap year", "-"),
    (re.compile(r"\b(?:which|what)\s+(?:one\s+)?(?:is|comes|falls|was|will\s+be)\s+(?:later|earlier|first|sooner|"
                r"last|before|after)\b", re.IGNORECASE), "a comparison of two dates", "-"),
    (re.compile(rf"\bon\s+(?:a|any|some)\s+(?:{_DAYS})\b", re.IGNORECASE),
     "a weekday that could be any of several", "-"),  # "my test is on a Tuesday next month", not "hoping for a Friday"
    (re.compile(r"^(?=.*\bborn\b)(?=.*\b(?:weekday|day\s+of\s+the\s+week|what\s+day)\b)(?!.*\b(?:1[89]|20)\d\d\b)",
                re.IGNORECASE | re.DOTALL), "the year of the birth", "-"),  # "born 14 feb, what weekday was that"
)
# A question that asks for a count, and the date operations whose answer is a date, not a count.
_COUNT_ASKED = re.compile(r"\bhow\s+(?:many|long)\b|\bnumber\s+of\b", re.IGNORECASE)
_DATE_OPERATIONS = frozenset({"add", "weekday", "today", "nth_weekday", "day_n"})
_NEGATION = re.compile(r"\b(?:never|without|none|no|not|except|excluding|other\s+than)\b|n't\b", re.IGNORECASE)
_OR = re.compile(r"\b\w+\s+or\s+(?!(?:older|over|more|above|higher|greater|younger|under|less|below|lower|fewer)\b)\w+",
                 re.IGNORECASE)  # "50 or older" is one bound
# Parts of a question, and what in the SQL covers them ("" : no query form does yet; "|" between
# alternatives).
_SQL_PARTS: tuple[tuple[re.Pattern[str], str, str], ...] = (
    (re.compile(r"\b(?:first|second|third|fourth|last|1st|2nd|3rd|4th)\s+(?:half|quarter)\s+of\s+\d{4}\b|"
                r"\b(?:teens|twenties|thirties|forties|fifties|sixties|seventies|eighties|nineties)\b", re.IGNORECASE),
     "a range", " >= ? AND "),
    (re.compile(r"\b(?:half|quarter)\b(?!\s+of\s+\d{4})", re.IGNORECASE), "a range", ""),
    (re.compile(r"\b(?:proportion|ratio|fraction)\b", re.IGNORECASE), "a share", ""),
    (re.compile(r"\b(?:percent(?:age)?|share)\b|%", re.IGNORECASE), "a share", "100.0 * SUM(CASE WHEN"),
    (re.compile(r"\b(?:distinct|different|unique)\b", re.IGNORECASE), "the different values", "DISTINCT"),
    (re.compile(r"\b(?:in)?active\b", re.IGNORECASE), "what active means", ""),
    (re.compile(r"\b(?:each|per|every)\s+\w+", re.IGNORECASE), "a value for each", "GROUP BY"),
    (re.compile(r"\b(?:than|above|below|over|under)\s+(?:the\s+)?(?:average|mean|median)\b", re.IGNORECASE),
     "a comparison with the average", ""),
    (re.compile(r"\b(?:second|third|fourth|fifth|2nd|3rd|4th|5th|\d+th)\s+(?:most|least|highest|lowest|largest|"
                r"smallest|biggest|oldest|youngest|latest|earliest)\b", re.IGNORECASE), "which place it asks for", ""),
    (re.compile(r"\bmedian\b", re.IGNORECASE), "a median", ""),
    # "a last login more than a year old", "2 months ago", "in the past week"; not "40 years old"
    (re.compile(r"\b(?:more|less|older|newer)\s+than\s+(?:a|an|one|\d+)\s+(?:years?|months?|weeks?|days?)\s+old\b"
                r"|\b(?:a|an|one|\d+)\s+(?:years?|months?|weeks?|days?)\s+ago\b"
                r"|\b(?:in|within|over)\s+the\s+(?:last|past)\s+\w+", re.IGNORECASE), "a span back in time", ""),
    (re.compile(r"\b(?:average|mean|avg)\b", re.IGNORECASE), "an average", "AVG(|1.0 * COUNT(*) /"),
)
# A superlative asks for the most or least of something: an order or a MAX/MIN covers it.
_SUPERLATIVE = re.compile(r"\b(?:oldest|youngest|latest|earliest|newest|most\s+recent|highest|lowest|largest|smallest|"
                          r"biggest|most|least|fewest|max(?:imum)?|min(?:imum)?|top)\b", re.IGNORECASE)
_SCALES = frozenset(Decimal(10) ** power for power in (3, 6, 9, 12))
_WHICH = re.compile(r"^\s*(?:which|what)\s+(?:\w+\s+){1,3}?(?:has|have|had|is|was|are|were)\s+the\b", re.IGNORECASE)
_MONTH_NAMES = re.compile(r"\b(?:" + "|".join(MONTHS) + r")\b", re.IGNORECASE)


_NUMERIC_DATE = re.compile(r"(?<![\d/.-])0?([1-9]|1[0-2])[/.-]0?([1-9]|1[0-2])[/.-](\d{4}|\d{2})(?![\d/.-])")


def date_left_out(message: str, reading: Mapping[str, Any] | None = None) -> str | None:
    """The part of a date question that its reading (the date tool's arguments a rule read, or
    None) does not cover, or None: a form is covered only by the operation that computes it
    (an age still to come, only by an age on a named day)."""
    if (numeric := _NUMERIC_DATE.search(message)) and numeric[1] != numeric[2]:  # both could be a month
        return f"the date {numeric[0]}, which reads two ways (day first or month first)"
    for pattern, form, operation in _DATE_FORMS:
        if pattern.search(message) and not _covers(reading, operation):
            return form
    if (reading is not None and reading.get("operation") in _DATE_OPERATIONS
            and _COUNT_ASKED.search(asking_sentence(message))):
        return "a count, not a date"  # "how many days before I must renew?" read as a date
    if reading is not None and _years_from_yearless(reading):
        return "a number of years from a day given with no year"  # "birthday on 20 June, how old will she be"
    if reading is not None and (anchor := anchor_left_out(message, reading)):
        return anchor  # "two weeks after the exam" read as two weeks from today
    if reading is not None and (number := _unused_number(message, reading)):
        return f"a calculation with {number}"  # "3 hours 40 minutes on Monday": not the days from Monday to Tuesday
    return None


def _unused_number(message: str, reading: Mapping[str, Any]) -> str:
    """A number of the sentence that asks that is neither in a date nor in the reading's arguments,
    or "" (a number in the context around the question is no part of it)."""
    text = spoken_years(words_to_digits(normalize(asking_sentence(message))))
    for value in sorted(extract(text, ("date", "time")), key=lambda value: -value.start):
        text = text[:value.start] + " " + text[value.start + len(value.text):]
    used = {int(digits) for digits in re.findall(r"\d+", " ".join(str(value) for value in reading.values()))}
    used |= {1} if reading.get("operation") == "day_n" else set()  # "counting March 3 as day 1"
    return next((number for number in re.findall(r"(?<![\w.,/])\d+(?!\d)(?![.,/]\d)(?![a-z])", text)
                 if int(number) not in used), "")


def _years_from_yearless(reading: Mapping[str, Any]) -> bool:
    """Whether the reading counts years (an age, or years between) from a day written with no
    year ("--06-20"): the day is taken as its latest one, so the count says nothing. The day
    counted to may have none ("how old will she be on November 1st this year")."""
    counts_years = reading.get("operation") == "age" or (reading.get("operation") == "between"
                                                         and reading.get("unit") == "years")
    return counts_years and str(reading.get("date", "")).startswith("--")


def _covers(reading: Mapping[str, Any] | None, operation: str) -> bool:
    if reading is None or reading.get("operation") != operation:
        return False
    return operation != "age" or bool(reading.get("other"))


def asked_part(message: str) -> str:
    """The part of a message that asks: the sentence with the question (the last with a question
    mark, else the first with a question word), from its question word on ("I'm curious, how
    many logins ..."), so that the context around a question is no part of it."""
    sentence = asking_sentence(message)
    word = QUESTION_WORD.search(sentence)
    return sentence[word.start():] if word else sentence


_PERCENTAGE = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s*(?:%|per\s*cent\b|percent\b)", re.IGNORECASE)


def percent_as_amount(message: str, expression: str) -> str | None:
    """A percentage of the message that a calculation uses as a plain amount ("6 of us ... an
    18% tip, how much does everyone owe?" read as 18 / 6), as written, or None: a percentage is
    used as its fraction ("18 / 100")."""
    for found in _PERCENTAGE.finditer(message):
        number = re.escape(found[1])
        uses = list(re.finditer(rf"(?<![\d.]){number}(?![\d.])", expression))
        if uses and not any(re.match(r"\s*/\s*100\b", expression[use.end():]) for use in uses):
            return found.group().strip()
    return None


_PERIOD_WORDS = {"day": "day", "days": "day", "daily": "day", "week": "week", "weeks": "week", "weekly": "week",
                 "month": "month", "months": "month", "monthly": "month", "year": "year", "years": "year",
                 "yearly": "year", "annual": "year", "annually": "year"}
_RATE_PERIOD = re.compile(r"\b(?:a|an|per|each|every|/)\s*(day|week|month|year)\b"
                          r"|\b(daily|weekly|monthly|yearly|annual(?:ly)?)\b", re.IGNORECASE)
_ASKED_PERIOD = re.compile(r"\b(days?|weeks?|months?|years?|daily|weekly|monthly|yearly|annual(?:ly)?)\b",
                           re.IGNORECASE)
_CLAUSE_EDGE = re.compile(r"[.!?;]|,(?!\d{3}\b)")  # not the comma of "$12,000"
_ASKED_RATE = re.compile(r"\b(?:daily|weekly|monthly|yearly|annual(?:ly)?)\b|(?<!\bin\s)\b(?:a|an|per|each|every)\s+"
                         r"(?:day|week|month|year)\b", re.IGNORECASE)  # "monthly payment", "what is it a month"
_CONVERSIONS = frozenset({"7", "12", "52", "30", "31", "365", "24", "4", "60"})  # days a week, months a year, ...


def period_left_out(message: str, expression: str) -> str | None:
    """The period a question asks about that a calculation of a rate over another period leaves
    out ("35 a month plus 8 for insurance. yearly total?" read as 35 + 8 leaves out the year), or
    None: no rate, the same period, or a conversion the calculation holds (7, 12, 52, ...)."""
    text = message.strip().rstrip("?.! ")
    cut = max((found.start() for found in _CLAUSE_EDGE.finditer(text)), default=-1)
    given, asked = (text[:cut], text[cut + 1:]) if cut > 0 else ("", text)  # the last clause asks
    rates = {_PERIOD_WORDS[(m[1] or m[2]).lower()] for m in _RATE_PERIOD.finditer(given)}
    wanted = {_PERIOD_WORDS[m[1].lower()] for m in _ASKED_PERIOD.finditer(asked)}
    said = [_PERIOD_WORDS[m[1].lower()] for m in _ASKED_PERIOD.finditer(text)]
    # "what my monthly payment would be on a $12,000 loan at 6%": a period asked, and named nowhere else
    unnamed = not rates and len(said) == 1 and bool(wanted) and _ASKED_RATE.search(asked) is not None
    if not unnamed and (not rates or not wanted or wanted & rates):
        return None
    stated = set(re.findall(r"\d+(?:\.\d+)?", re.sub(r"(?<=\d),(?=\d{3}\b)", "", message)))
    added = set(re.findall(r"\d+(?:\.\d+)?", expression)) - stated  # a factor of the reading's own
    if added & _CONVERSIONS or (unnamed and added - {"1", "100"}):  # "seconds in a day": 86400 converts already
        return None
    return f"the {sorted(wanted)[0]}"


def unused_numbers(numbers: Sequence[Value], arguments: Mapping[str, Any]) -> list[str]:
    """The message's `numbers` (the reading's, dates apart) that a rule's call with `arguments`
    does not use, as written, each use of a number counting for one of the message's ("3/4 cup
    ... 3 batches" read as 3/4 leaves a 3 out); a percentage counts as used as a fraction too ("25%" as 0.25),
    "1 million" (read as 1 and 1000000) as one number, and a year said in words ("twenty
    twenty-eight", read as 20 and 28) as the year the call holds."""
    held = Counter(_decimal(found) for found in re.findall(r"\d+(?:\.\d+)?", json.dumps(dict(arguments))))
    if arguments.get("operation") == "day_n":  # its date is day 1
        held[Decimal(1)] += 1
    unused = []
    for text, number in _scaled(numbers):  # each use holds one number: "3/4 cup ... 3 batches" leaves one 3 out
        if number is None:
            continue
        used = number if held[number] > 0 else (number / 100).normalize()
        if held[used] > 0:
            held[used] -= 1
        else:
            unused.append(text)
    for century, rest in itertools.pairwise(numbers):  # "twenty twenty-eight" read as 2028
        if (century.key in ("19", "20") and len(rest.key) == 2 and rest.start - century.start - len(century.text) <= 1
                and _decimal(century.key + rest.key) in held):
            unused = [text for text in unused if text not in (century.text, rest.text)]
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
    """The part of a question its structured query (`sql` with `parameters`) leaves out, or None
    (only the part that asks is read: the context around it is not the question)."""
    message = asked_part(message)
    upper = sql.upper()
    if _NEGATION.search(message) and " NOT " not in upper and "!=" not in upper and "<>" not in upper:
        return "the negation"
    if _OR.search(message) and " OR " not in upper and " IN (" not in upper:
        return 'the "or"'
    if part := next((part for pattern, part, covered in _SQL_PARTS
                     if pattern.search(message) and not (covered and any(c in upper for c in covered.split("|")))),
                    None):
        return part
    if _WHICH.search(message) and "GROUP BY" not in upper and "ORDER BY" not in upper:
        return "which one it asks for"
    if _SUPERLATIVE.search(message) and not any(covered in upper for covered in ("ORDER BY", "MAX(", "MIN(")):
        return "the most or least it asks for"
    held = " ".join(str(value) for value in parameters) + " " + sql
    numbers = re.findall(r"(?<![\w.])\d+(?:\.\d+)?\b", _MONTH_NAMES.sub(" ", words_to_digits(message)))  # "which two"
    if missing := [number for number in numbers if number not in held and f"{_next_year(number)}-01-01" not in held]:
        return f"the condition on {missing[0]}"
    return None


def _next_year(number: str) -> str:
    """The year after a year ("2022" ends before 2023-01-01, as a range of dates is written)."""
    return str(int(number) + 1) if re.fullmatch(r"(?:19|20)\d\d", number) else "-"


def sql_text(sql: str, parameters: Sequence[Any]) -> str:
    """`sql` with its parameters written in, for showing."""
    values = iter(parameters)
    return re.sub(r"\?", lambda _: repr(next(values, "?")), sql)
