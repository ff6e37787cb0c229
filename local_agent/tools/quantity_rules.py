"""Rules for questions about amounts over time and multiples of a number, read into a
calculator expression: time-unit conversions ("how many minutes are in 2.5 hours"), a rate over
a span ("I read 20 pages a day, how many in 30 days", "1,350 a month, what is that over a
year"), how much of something a rate needs ("32 miles per gallon, how many gallons for 448
miles"), and multiples ("double 475", "cut 120 in half", "reduce 90 by a third").

They read text as question_text.normalize leaves it, and arithmetic_rules runs them only on a
question or a request."""

from __future__ import annotations

import re

N = r"(\d+(?:\.\d+)?)"
# Lengths of the units of time, in seconds; a month and a year only against each other.
_SECONDS = {"second": 1, "minute": 60, "hour": 3600, "day": 86_400, "week": 604_800}
_CALENDAR = {"month": 1, "year": 12}
_UNIT = r"(second|minute|hour|day|week|month|year)s?"
_ONE = r"(?:a|an|one|per|each|every|1)"
_MULTIPLES = {"double": "2", "twice": "2", "triple": "3", "quadruple": "4"}


def ratio(unit: str, per: str) -> float | None:
    """How many `unit`s one `per` holds (hours in a week: 168), or None when the two are not
    measured against each other here (days in a month)."""
    for table in (_SECONDS, _CALENDAR):
        if unit in table and per in table:
            return table[per] / table[unit]
    if unit == "day" and per == "year":
        return 365
    if unit == "week" and per == "year":
        return 52
    return None


def time_conversion(text: str) -> str | None:
    """"how many minutes are in 2.5 hours", "how many hours in a week", "3 hours in seconds"."""
    match = re.search(rf"\bhow\s+many\s+{_UNIT}\s+(?:are\s+|is\s+|there\s+are\s+)?(?:there\s+)?"
                      rf"(?:in|per)\s+(?:{N}|{_ONE})\s+{_UNIT}", text)
    if match:
        unit, count, per = match[1], match[2] or "1", match[3]
    elif match := re.search(rf"\b(?:convert\s+)?{N}\s+{_UNIT}\s+(?:in|to|into)\s+{_UNIT}\b", text):
        count, per, unit = match[1], match[2], match[3]
    else:
        return None
    factor = ratio(unit, per)
    return None if factor is None else f"{count} * {_number(factor)}"


def rate_over_span(text: str) -> str | None:
    """A rate ("20 pages a day", "35 bucks a month", "60 miles per hour") over the span the
    question names ("in 30 days", "for 3 hours", "after 8 weeks", "in a year", "per year")."""
    rates = list(re.finditer(rf"{N}\s+(?:[a-z$]+\s+){{0,2}}?(?:a|an|per|each|every)\s+{_UNIT}\b", text))
    if len(rates) != 1:
        return None  # two rates ("20 pages a day for a week, then 10 a day") is a word problem for the model
    rate = rates[0]
    rest = text[rate.end():]
    spans = list(re.finditer(rf"\b(?:for|in|after|over|within|during)\s+(?:the\s+next\s+|a\s+total\s+of\s+)?"
                             rf"(?:{N}|{_ONE})\s+{_UNIT}\b|\b(?:per|a|each|every)\s+{_UNIT}\b", rest))
    if len(spans) != 1 or len(re.findall(r"\d+(?:\.\d+)?", text)) != 1 + (spans[0][1] is not None):
        return None  # no span, two spans, or a number it would leave out
    span = spans[0]
    count = span[1] or "1"
    per = span[2] or span[3]
    factor = ratio(rate[2], per)
    if factor is None or (per == rate[2] and count == "1"):
        return None  # days in a month; or the rate's own unit again ("... a day, how much a day")
    return f"{rate[1]} * {count}" + ("" if factor == 1 else f" * {_number(factor)}")


def amount_needed(text: str) -> str | None:
    """"32 miles per gallon ... how many gallons for 448 miles": the second amount over the rate."""
    rate = re.search(rf"{N}\s+([a-z]+)\s+(?:per|a|an|to\s+the|for\s+each|for\s+every)\s+([a-z]+?)s?\b", text)
    if rate is None:
        return None
    asked = re.search(rf"\bhow\s+many\s+{rate[3]}s?\b.*?\b(?:for|to\s+\w+|in|over)\s+{N}\s+{rate[2]}", text)
    return f"{asked[1]} / {rate[1]}" if asked else None


def multiple(text: str) -> str | None:
    """"double 475", "475 doubled", "half of 3450", "cut 120 in half", "reduce 90 by a third"."""
    if match := re.search(rf"\b(double|twice|triple|quadruple)\s+(?:of\s+)?{N}", text):
        return f"{match[2]} * {_MULTIPLES[match[1]]}"
    if match := re.search(rf"{N}\s+(doubled|tripled)\b", text):
        return f"{match[1]} * {2 if match[2] == 'doubled' else 3}"
    if match := re.search(rf"\b(?:halve|cut|split|divide)\s+{N}\s+in\s+(?:half|two)\b|\bhalve\s+{N}", text):
        return f"{match[1] or match[2]} / 2"
    # normalize writes "a third" as "a 3rd" and "half of" as "(1/2) of"
    if match := re.search(rf"\b(reduce|decrease|cut|lower|increase|raise)\s+{N}\s+by\s+(?:a\s+|one\s+)?"
                          r"(half|\(1/2\)|(\d+)(?:st|nd|rd|th))(?!\w)", text):
        sign = "-" if match[1] in ("reduce", "decrease", "cut", "lower") else "+"
        share = f"1/{match[4]}" if match[4] else "1/2"
        return f"{match[2]} * (1 {sign} {share})"
    return None


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(value)


RULES = (time_conversion, amount_needed, rate_over_span, multiple)
