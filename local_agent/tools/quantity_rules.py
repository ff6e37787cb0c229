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
_PARTS = {"half": "0.5", "quarter": "0.25"}
_FEET = frozenset({"foot", "feet", "ft"})


# An amount to convert: one number and unit, or two of one measure ("5 feet 10 inches",
# "2 hours and 20 minutes"), or a unit alone ("in a day": one; "half a pound": a half).
# A fraction is one amount ("3/4 cup", "3/4 of a cup"); a hyphen may join it to its unit ("a
# 55-inch screen").
_AMOUNT_NAMED = (rf"(?:(?<![\w.])(?P<amount>-?\d+(?:\.\d+)?(?:/\d+)?)(?:(?:(?<=/\d)|(?<=/\d\d))\s+of\s+an?\s+|\s*|-)"
                 rf"|\b(?P<part>half|quarter)\s+(?:of\s+)?(?:a|an)\s+|\b(?:a|an|one)\s+)(?P<unit>{units.UNIT})"
                 rf"(?:\s+(?:and\s+)?(?P<more>\d+(?:\.\d+)?)\s*(?P<more_unit>{units.UNIT})?)?")
_TARGET = rf"(?P<target>{units.UNIT})"
_OWNED = r"(?:a|an|the|my|your|his|her|our|their|this|that)"  # "how many cm is a 32-inch waist"
# Forms of a conversion: how many ounces in 2 pounds; convert 5 miles to km; I weigh 70 kg,
# what's that in pounds?; 750 ml ... how many liters is that?
_CONVERSIONS = tuple(re.compile(form) for form in (
    (rf"\bhow\s+many\s+{_TARGET}\s+(?:are\s+|is\s+)?(?:there\s+)?(?:in|is|are|make|equals?)\s+(?:{_OWNED}\s+)?"
     rf"{_AMOUNT_NAMED}"),
    rf"\bhow\s+many\s+{_TARGET}\s+{_OWNED}\s+{_AMOUNT_NAMED}",  # "how many cm a 55-inch screen is"
    rf"{_AMOUNT_NAMED}\s+(?:in|to|into|as)\s+{_TARGET}",
    (rf"{_AMOUNT_NAMED}.*?\b(?:(?:what(?:'s|s|\s+is)|how\s+much\s+is)\s+(?:that|it|this)|"
    rf"what\s+(?:that|it|this)\s+(?:is|was|would\s+be|comes\s+to)|what\s+(?:would|will)\s+(?:that|it|this)\s+be)"
     rf"\s+(?:in\s+)?{_TARGET}"),  # "asking what that is in F", "38.5 celsius what is that fahrenheit"
    rf"{_AMOUNT_NAMED}.*?\bhow\s+many\s+{_TARGET}\s+(?:is|are)\s+(?:that|it|this)\b",
    rf"{_AMOUNT_NAMED}\s*,?\s+(?:in|to|into)\s+{_TARGET}\s*(?:please|pls|plz)?\W*$",  # "98.6 F, in celsius please"
    rf"{_AMOUNT_NAMED}\s+(?:is|are|makes|equals)\s+how\s+many\s+{_TARGET}",  # "250 ml is how many cups"
    rf"{_AMOUNT_NAMED}.*?\bhow\s+much\s+(?:(?:is|are)\s+(?:that|it|this)\s+)?in\s+{_TARGET}",  # "28 c. how much in f"
    rf"{_AMOUNT_NAMED}\s+(?:is|are)\s+in\s+{_TARGET}",  # "how tall 6 feet is in metres"
))
_NOT_ASKING = (2, 8)  # "5 miles in km", "6 feet is in metres": forms that ask only after a question word
# A terse conversion, nothing around it but a word or two ("minutes in 3.5 hours", "hw many
# seconds in a day", "2 km in miles").
_LEAD = r"(?:(?:how|many|much|what|what's|whats|is|are|convert|the|number|of|\w{1,3}(?=\s+(?:many|much)\b))\s+)"
_TERSE = (re.compile(rf"^{_LEAD}{{0,3}}{_TARGET}\s+(?:are\s+|is\s+)?(?:there\s+)?in\s+{_AMOUNT_NAMED}\s*\??$"),
          re.compile(rf"^{_LEAD}{{0,2}}{_AMOUNT_NAMED}\s+(?:in|to|into)\s+{_TARGET}\s*\??$"))


def unit_conversion(text: str) -> str | None:
    """"convert 5 miles to km", "how many ounces in 2 pounds", "how many hours in a week",
    "I weigh 70 kg, what's that in pounds?", "750 ml ... how many liters is that?", "convert
    5 feet 10 inches to cm"."""
    return next((_converted(match, text) for form in _CONVERSIONS if (match := form.search(text))), None)


def asked_conversion(text: str) -> str | None:
    """A conversion whose own words ask it, with no question mark or opening question word
    ("3 cups of flour how many ml is that", "how many minuts is 2.75 hrs", "it's 98.6 F, in
    celsius please": the target unit ends the message)."""
    return next((_converted(match, text) for at, form in enumerate(_CONVERSIONS)
                 if at not in _NOT_ASKING and (match := form.search(text))), None)


def terse_conversion(text: str) -> str | None:
    """A conversion asked with no question word: the message is the conversion and at most a
    word or two ("minutes in 3.5 hours", "2 km in miles")."""
    return next((_converted(match, text) for form in _TERSE if (match := form.search(text))), None)


def _converted(match: re.Match[str], text: str) -> str | None:
    """The expression of a conversion match: each amount's part in the target unit, summed;
    None when a unit is not one of ours, the parts measure different things, the second part is
    not the smaller unit, or the message holds a number the conversion would leave out."""
    names = [units.unit_name(match[group]) if match[group] else None for group in ("unit", "more_unit", "target")]
    source, smaller, target = names
    if match["more"] and smaller is None and source in _FEET:
        smaller = "inch"  # "6 foot 2": inches after feet
    if source is None or target is None or (match["more"] and smaller is None):
        return None
    whole = match["amount"] or _PARTS.get(match["part"] or "", "1")
    parts = [(whole, source)] + ([(match["more"], smaller)] if smaller else [])
    if len(re.findall(r"\d+(?:\.\d+)?(?:/\d+)?", text)) > sum(1 for group in ("amount", "more") if match[group]):
        return None  # "5 feet and 3 friends": a number it would leave out
    if smaller and not units.smaller(smaller, source):
        return None  # "10 inches 5 feet" is no compound amount
    converted = [units.conversion(amount, unit, target) or (amount if unit == target else None)
                 for amount, unit in parts]
    if any(part is None for part in converted):
        return None
    return " + ".join(f"({part})" if len(converted) > 1 and " " in str(part) else str(part) for part in converted)


def rate_over_span(text: str) -> str | None:
    """A rate ("20 pages a day", "35 bucks a month", "60 miles per hour") over the span the
    question names ("in 30 days", "for 3 hours", "after 8 weeks", "in a year", "per year",
    "worked 32.5 hours")."""
    rates = list(re.finditer(rf"{N}\s+(?:[a-z$]+\s+){{0,2}}?(?:a|an|per|each|every)\s+{_UNIT}\b", text))
    if len(rates) != 1:
        return None  # two rates ("20 pages a day for a week, then 10 a day") is a word problem for the model
    rate = rates[0]
    rest = text[rate.end():]
    spans = list(re.finditer(rf"\b(?:for|in|after|over|within|during|worked|work)\s+"
                             rf"(?:the\s+next\s+|a\s+total\s+of\s+)?"
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
