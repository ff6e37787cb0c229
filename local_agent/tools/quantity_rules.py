"""Rules for questions about measures, amounts over time and multiples of a number, read into a
calculator expression: unit conversions ("how many minutes are in 2.5 hours", "convert 5 miles
to km", "350 F, what's that in C"; units.py holds the units), a rate over
a span ("I read 20 pages a day, how many in 30 days", "1,350 a month, what is that over a
year"), how much of something a rate needs ("32 miles per gallon, how many gallons for 448
miles"), and multiples ("double 475", "cut 120 in half", "reduce 90 by a third").

They read text as question_text.normalize leaves it, and arithmetic_rules runs them only on a
question or a request."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from . import units
from .question_text import decimal_text

N = r"(\d+(?:\.\d+)?)"
_UNIT = r"(second|minute|hour|day|week|month|year)s?"
_ONE = r"(?:a|an|one|per|each|every|1)"
_MULTIPLES = {"double": "2", "twice": "2", "triple": "3", "quadruple": "4"}
_MEASURE = rf"({units.UNIT})"
_SIGNED = r"(?<![\w.])(-?\d+(?:\.\d+)?)"  # an amount to convert: -40 F; not the 5 of 1e5


# Forms of a conversion, each with the order its groups come in: amount, source unit, target unit.
_CONVERSIONS = (
    (re.compile(rf"\bhow\s+many\s+{_MEASURE}\s+(?:are\s+|is\s+)?(?:there\s+)?(?:in|is|are|make|equals?)\s+"
                rf"(?:{_SIGNED}\s*|(?:a|an|one)\s+){_MEASURE}"), (2, 3, 1)),  # how many ounces in 2 pounds
    (re.compile(rf"(?:{_SIGNED}\s*|\b(?:a|an|one)\s+){_MEASURE}\s+(?:in|to|into|as)\s+{_MEASURE}"),
     (1, 2, 3)),  # convert 5 miles to km
    (re.compile(rf"{_SIGNED}\s*{_MEASURE}.*?\b(?:what(?:'s|\s+is)|how\s+much\s+is)\s+(?:that|it|this)\s+in\s+{_MEASURE}"),
     (1, 2, 3)),  # I weigh 70 kg, what's that in pounds?
    (re.compile(rf"{_SIGNED}\s*{_MEASURE}.*?\bhow\s+many\s+{_MEASURE}\s+(?:is|are)\s+(?:that|it|this)\b"), (1, 2, 3)),
)


def unit_conversion(text: str) -> str | None:
    """"convert 5 miles to km", "how many ounces in 2 pounds", "how many hours in a week",
    "I weigh 70 kg, what's that in pounds?", "750 ml ... how many liters is that?"."""
    for pattern, (amount, source, target) in _CONVERSIONS:
        if match := pattern.search(text):
            source_name, target_name = units.unit_name(match[source]), units.unit_name(match[target])
            if source_name is None or target_name is None:
                return None
            if len(re.findall(r"\d+(?:\.\d+)?", text)) > (1 if match[amount] else 0):
                return None  # "5 feet 10 inches": a number it would leave out
            return units.conversion(match[amount] or "1", source_name, target_name)
    return None


def rate_over_span(text: str) -> str | None:
    """A rate ("20 pages a day", "35 bucks a month", "60 miles per hour") over the span the
    question names ("in 30 days", "for 3 hours", "after 8 weeks", "in a year", "per year")."""
    rates = list(re.finditer(rf"{N}\s+(?:[a-z$]+\s+){{0,2}}?(?:a|an|per|each|every)\s+{_UNIT}\b", text))
    if len(rates) != 1:
        return None  # two rates ("20 pages a day for a week, then 10 a day") is a word problem for the model
    rate = rates[0]
    rest = text[rate.end():]
    spans = list(re.finditer(rf"\b(?:for|in|after|over|within|during)\s+(?:the\s+next\s+|a\s+total\s+of\s+)?"
                             rf"(?:{N}|(half\s+(?:a|an))|{_ONE})\s+{_UNIT}\b|"
                             rf"(?<!half\s)(?<![\d)]\s)\b(?:per|a|each|every)\s+{_UNIT}\b", rest))
    if len(spans) != 1 or len(re.findall(r"\d+(?:\.\d+)?", text)) != 1 + (spans[0][1] is not None):
        return None  # no span, two spans, or a number it would leave out
    span = spans[0]
    count = span[1] or ("0.5" if span[2] else "1")  # for half a year
    per = span[3] or span[4]
    factor = units.ratio(rate[2], per)
    if factor is None or (per == rate[2] and count == "1"):
        return None  # days in a month; or the rate's own unit again ("... a day, how much a day")
    return f"{rate[1]} * {count}" + ("" if factor == 1 else f" * {decimal_text(factor)}")


def amount_needed(text: str) -> str | None:
    """"32 miles per gallon ... how many gallons for 448 miles": the second amount over the rate."""
    rate = re.search(rf"{N}\s+([a-z]+)\s+(?:per|a|an|to\s+the|for\s+each|for\s+every)\s+([a-z]+?)s?\b", text)
    if rate is None:
        return None
    asked = re.search(rf"\bhow\s+many\s+{rate[3]}s?\b.*?\b(?:for|to\s+\w+|in|over)\s+{N}\s+{rate[2]}", text)
    return f"{asked[1]} / {rate[1]}" if asked else None


Form = tuple[re.Pattern[str], Callable[[re.Match[str]], str]]


def first_form(text: str, forms: Sequence[Form]) -> str | None:
    """The expression of the first form whose pattern `text` matches, or None."""
    for pattern, build in forms:
        if match := pattern.search(text):
            return build(match)
    return None


_MULTIPLE_FORMS: tuple[Form, ...] = (
    (re.compile(rf"\b(double|twice|triple|quadruple)\s+(?:of\s+)?{N}"), lambda m: f"{m[2]} * {_MULTIPLES[m[1]]}"),
    (re.compile(rf"{N}\s+(doubled|tripled)\b"), lambda m: f"{m[1]} * {2 if m[2] == 'doubled' else 3}"),
    (re.compile(rf"\b(?:halve|cut|split|divide)\s+{N}\s+in\s+(?:half|two)\b|\bhalve\s+{N}"),
     lambda m: f"{m[1] or m[2]} / 2"),
    # normalize writes "a third" as "a 3rd" and "half of" as "(1/2) of"
    (re.compile(rf"\b(reduce|decrease|cut|lower|increase|raise)\s+{N}\s+by\s+(?:a\s+|one\s+)?"
                r"(half|\(1/2\)|(\d+)(?:st|nd|rd|th))(?!\w)"),
     lambda m: f"{m[2]} * (1 {'-' if m[1] in ('reduce', 'decrease', 'cut', 'lower') else '+'} 1/{m[4] or 2})"),
)


def multiple(text: str) -> str | None:
    """"double 475", "475 doubled", "half of 3450", "cut 120 in half", "reduce 90 by a third"."""
    return first_form(text, _MULTIPLE_FORMS)


RULES = (unit_conversion, amount_needed, rate_over_span, multiple)
