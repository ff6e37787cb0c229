"""How the user wants a number rounded (issue 42): "One decimal is fine", "round to 2 decimals",
"3 dp", "rounded to the nearest whole number", "to the cent". Read once, for every tool: the
answer's number is shown with that many decimal places, and the instruction's words are part
of the question a tool's reading covers (its number is no quantity of the question).

Each form is a pattern kept as data with the places it means; "round trip", "a round table",
"all year round" and "the nearest shop" name no rounding."""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

# How many places a count word says ("one decimal", "a single decimal place").
_COUNTS = {"a single": 1, "single": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_COUNT = r"(?P<count>[0-6]|one|two|three|four|five|six|a\s+single|single)"
# What the nearest unit says ("to the nearest tenth": 1 place; "the nearest dollar": none).
# "To the nearest degree" is a whole number too: a temperature is always in degrees ("the nearest
# minute" of a time in hours is no rounding of its number, so it is not here).
_NEAREST = {"whole": 0, "integer": 0, "dollar": 0, "euro": 0, "pound": 0, "percent": 0, "degree": 0,
            "tenth": 1, "hundredth": 2, "cent": 2, "penny": 2, "thousandth": 3}
_UNIT = (r"(?P<unit>whole(?:\s+number)?|integer|dollar|euro|pound|percent(?:age\s+point)?|tenth|"
         r"hundredth|thousandth|cent|penny|degree)\b")
# What may go before an instruction ("round the answer off to", "with") and after it ("is fine").
_BEFORE = (r"(?:\b(?:round(?:ed|ing)?|give\s+it|show\s+it)\s+(?:(?:it|that|this|the\s+\w+|them|your\s+\w+)\s+)?"
           r"(?:(?:off|up|down)\s+)?(?:to\s+|at\s+|with\s+)?|\b(?:to|with|at|in|using)\s+)?")
_AFTER = (r"(?:\s+(?:is|are|would\s+be|will\s+be|should\s+be)\s+(?:fine|ok|okay|enough|plenty|good|great|perfect)|"
          r"\s+(?:please|pls|max|only))?")
# An instruction ends the clause or goes on with a function word ("2 decimal screws" is no rounding).
_END = r"(?=\s*(?:$|[^\w\s]|(?:and|or|but|for|in|on|if|is|are|when|as|with)\b))"
# Each form: its pattern and the places (None: the count or unit named in it).
FORMS: tuple[tuple[re.Pattern[str], int | None], ...] = (
    (re.compile(_BEFORE + rf"\b{_COUNT}\s*(?:decimals?(?:\s+(?:places?|points?|digits?))?|dp|d\.p\.?|places?\s+of\s+"
                r"decimals?|digits?\s+after\s+the\s+(?:decimal\s+)?point)(?!\w)" + _AFTER + _END, re.IGNORECASE), None),
    (re.compile(_BEFORE + r"\b(?:the\s+)?nearest\s+" + _UNIT + _AFTER, re.IGNORECASE), None),
    (re.compile(r"\bround(?:ed|ing)?\s+(?:(?:it|that|the\s+\w+)\s+)?(?:(?:off|up|down)\s+)?to\s+(?:an?\s+|the\s+)?"
                + _UNIT + _AFTER, re.IGNORECASE), None),
    (re.compile(r"\b(?:to|in)\s+the\s+(?P<unit>cent|penny)\b" + _AFTER, re.IGNORECASE), None),
    (re.compile(r"\b(?:as\s+an?|in)\s+whole\s+numbers?\b|\b(?:no|without(?:\s+any)?)\s+decimals?\b(?:\s+places?)?",
                re.IGNORECASE), 0),
)


@dataclass(frozen=True)
class Rounding:
    """A rounding instruction: the decimal places it asks for and where it stands."""

    places: int
    start: int
    end: int
    text: str

    def masked(self, message: str) -> str:
        """`message` (the one it was read from) with the instruction blanked out, positions kept."""
        return message[:self.start] + " " * (self.end - self.start) + message[self.end:]

    def shown(self, number: float | int | Decimal) -> str:
        """`number` with the places asked for, halves away from zero (2.25 -> 2.3)."""
        step = Decimal(1).scaleb(-self.places)
        return str(Decimal(str(number)).quantize(step, rounding=ROUND_HALF_UP))


def read_rounding(message: str) -> Rounding | None:
    """The rounding instruction of `message`, or None (the first one found, by the forms' order)."""
    for pattern, places in FORMS:
        if (match := pattern.search(message)) is None:
            continue
        found = places if places is not None else _places(match)
        if found is not None:
            return Rounding(found, match.start(), match.end(), match[0].strip())
    return None


def masked(message: str) -> str:
    """`message` with its rounding instruction blanked out (as it is when it has none)."""
    rounding = read_rounding(message)
    return message if rounding is None else rounding.masked(message)


def _places(match: re.Match[str]) -> int | None:
    groups = match.groupdict()
    if groups.get("count"):
        count = " ".join(groups["count"].lower().split())
        return int(count) if count.isdigit() else _COUNTS.get(count)
    unit = (groups.get("unit") or "").lower().split()[0]
    return _NEAREST.get(unit)
