"""Rules that turn an unambiguous arithmetic or date question into the tool's arguments.

A rule matches the whole message or not at all ("what is 17 * 23?", "12% of 250", "what day
is it", "what date is 3 weeks from today"), so words around a calculation ("what is 17 * 23
in my budget?") leave the message to the model."""

from __future__ import annotations

import re
from typing import Any

_NUMBER = r"\d+(?:\.\d+)?"
_ASK = r"(?:please\s+)?(?:(?:can|could) you\s+)?(?:tell me\s+)?"
_ARITHMETIC_OPENERS = re.compile(
    rf"^{_ASK}(?:what(?:'s|\s+is|\s+are)|how\s+much\s+is|calculate|compute|evaluate|work\s+out|solve)\s+", re.I)
_WORDS = [  # spoken operators, longest first
    (r"\bto\s+the\s+power\s+of\b|\braised\s+to(?:\s+the\s+power\s+of)?\b", "**"),
    (r"\bmultiplied\s+by\b|\btimes\b", "*"),
    (r"\bdivided\s+by\b|\bover\b", "/"),
    (r"\bplus\b|\band\b", "+"),
    (r"\bminus\b", "-"),
    (r"\bsquared\b", "**2"),
    (r"\bcubed\b", "**3"),
]
_PERCENT_OF = re.compile(rf"({_NUMBER})\s*(?:%|\s+percent)\s+of\s+({_NUMBER})", re.I)
_SQUARE_ROOT = re.compile(rf"\b(?:the\s+)?square\s+root\s+of\s+({_NUMBER})", re.I)
_TIMES_X = re.compile(r"(?<=\d)\s*[x×]\s*(?=\d)")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}\b)")
_EXPRESSION = re.compile(r"^[\d\s.+\-*/()]*(?:sqrt\([\d.]+\))?[\d\s.+\-*/()]*$")
_BINARY = re.compile(r"[\d)]\s*(?:\*\*|[-+*/])\s*[-\d(s]")


def arithmetic(message: str) -> str | None:
    """The calculator expression of a message that is only an arithmetic question."""
    text = _ARITHMETIC_OPENERS.sub("", message.strip().rstrip("?.!= ").strip())
    text = re.sub(r"\s+(?:equals?|equal\s+to)$", "", text, flags=re.I)
    text = _THOUSANDS.sub("", text)
    text = _PERCENT_OF.sub(r"\1 / 100 * \2", text)
    text = _SQUARE_ROOT.sub(r"sqrt(\1)", text)
    text = _TIMES_X.sub(" * ", text)
    for pattern, symbol in _WORDS:
        text = re.sub(pattern, f" {symbol} ", text, flags=re.I)
    text = " ".join(text.split()).replace("^", "**")
    if not _EXPRESSION.match(text) or not (_BINARY.search(text) or text.startswith("sqrt(")):
        return None
    return text


# -- dates ---------------------------------------------------------------------------------
_NUMBER_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
                 "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20,
                 "thirty": 30, "hundred": 100}
_AMOUNT = r"(\d{1,5}|" + "|".join(_NUMBER_WORDS) + r")"
_UNIT = r"(day|week|month|year)s?"
_ISO = r"(\d{4}-\d{2}-\d{2})"
_ANCHOR = rf"(today|now|tomorrow|yesterday|{_ISO[1:-1]})"
_WHAT_DAY = r"(?:what|which)\s+(?:date|day(?:\s+of\s+the\s+week)?)"
_TODAY = re.compile(
    rf"^{_ASK}(?:{_WHAT_DAY}\s+is\s+(?:it\s*)?(?:today)?|what(?:'s|\s+is)\s+(?:the\s+date|today'?s\s+date|"
    r"the\s+day|today)(?:\s+today)?|what\s+day\s+of\s+the\s+week\s+is\s+it(?:\s+today)?)$", re.I)
_SHIFT = re.compile(
    rf"^{_ASK}{_WHAT_DAY}\s+(?:is\s+it|is|was\s+it|was|will\s+it\s+be|will\s+be|would\s+it\s+be)\s+"
    rf"(?:(?:in\s+)?{_AMOUNT}\s+{_UNIT}\s+(from|after|before)\s+{_ANCHOR}|"
    rf"in\s+{_AMOUNT}\s+{_UNIT}|{_AMOUNT}\s+{_UNIT}\s+(ago|from\s+now))$", re.I)
_WEEKDAY = re.compile(rf"^{_ASK}what\s+day(?:\s+of\s+the\s+week)?\s+(?:is|was|will\s+be)\s+{_ISO}$", re.I)
_UNTIL = re.compile(rf"^{_ASK}how\s+many\s+days\s+(?:are\s+(?:there\s+|left\s+)?|is\s+it\s+)?"
                    rf"(?:until|till|to|before)\s+{_ISO}$", re.I)
_BETWEEN = re.compile(rf"^{_ASK}how\s+many\s+days\s+(?:are\s+there\s+)?between\s+{_ISO}\s+and\s+{_ISO}$", re.I)
_ANCHOR_DAYS = {"today": 0, "now": 0, "tomorrow": 1, "yesterday": -1}


def _amount(word: str) -> int:
    return int(word) if word.isdigit() else _NUMBER_WORDS[word.lower()]


def date_question(message: str) -> dict[str, Any] | None:
    """The date tool's arguments for a message that is only a date question."""
    text = " ".join(message.strip().rstrip("?.! ").split())
    if _TODAY.match(text):
        return {"operation": "today"}
    if match := _WEEKDAY.match(text):
        return {"operation": "weekday", "date": match[1]}
    if match := _UNTIL.match(text):
        return {"operation": "between", "date": "today", "other": match[1]}
    if match := _BETWEEN.match(text):
        return {"operation": "between", "date": match[1], "other": match[2]}
    if match := _SHIFT.match(text):
        return _shift_arguments(match)
    return None


def _shift_arguments(match: re.Match[str]) -> dict[str, Any] | None:
    if match[1]:  # N units from/after/before an anchor
        amount, unit, direction, anchor = _amount(match[1]), match[2].lower(), match[3].lower(), match[4].lower()
        sign = -1 if direction == "before" else 1
    elif match[5]:  # in N units
        amount, unit, sign, anchor = _amount(match[5]), match[6].lower(), 1, "today"
    else:  # N units ago / from now
        amount, unit, anchor = _amount(match[7]), match[8].lower(), "today"
        sign = -1 if match[9].lower() == "ago" else 1
    offset = _ANCHOR_DAYS.get(anchor, 0)
    if offset:  # "3 days after tomorrow": days and weeks add up with the anchor's day
        if unit not in ("day", "week"):
            return None
        amount, unit = amount * (7 if unit == "week" else 1), "day"
    start = "today" if anchor in _ANCHOR_DAYS else anchor
    return {"operation": "add", "date": start, "amount": sign * amount + offset, "unit": unit + "s"}
