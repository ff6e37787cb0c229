"""What a calculation lacks: the quantity no number in the message gives, said back so that the
reply can ask for it instead of inventing it.

- A comparison with one side unknown: "Eva is 3 years older than her brother. How old is
  Eva?" gives the difference and not her brother's age; "i got 3 more then Sara" gives no
  number for Sara. Read only when the comparison is the message's one quantity ("Sam has 23
  marbles, 8 more than Lee" is a word problem the solver reads).
- A container size with no count of things: "cups come in packs of twenty. how many packs do I
  need?" needs how many cups (packing.py).
- A rate with the other amount missing: "travels at 80 km/h, when does it arrive?" needs the
  distance; "3 eggs per cake, how many eggs do I need?" needs the number of cakes. Read only
  when no other quantity of the message counts what is needed ("240 km at 80 km/h, how long?"
  has it).
"""

from __future__ import annotations

import re

from ..values import words_to_digits
from .asking import calculation_shaped, without_named_days
from .packing import size_without_count
from .quantities import Quantity, read, singular

_COMPARATIVE = (r"more|less|fewer|older|younger|taller|shorter|heavier|lighter|longer|bigger|smaller|cheaper|"
                r"dearer|higher|lower|faster|slower|further|farther")
_COMPARISON = re.compile(rf"(?P<amount>\d+(?:\.\d+)?)\s+(?:[a-z]+\s+){{0,2}}?(?P<word>{_COMPARATIVE})\b"
                         rf"(?:\s+[a-z]+){{0,2}}?\s+(?:than|then)\s+(?P<other>[^.?!,;]+)", re.IGNORECASE)
_MEASURE_OF = {"older": "age", "younger": "age", "taller": "height", "shorter": "height", "heavier": "weight",
               "lighter": "weight", "longer": "length", "faster": "speed", "slower": "speed",
               "cheaper": "price", "dearer": "price"}
_RATE = re.compile(r"(?P<amount>\d+(?:\.\d+)?)\s*(?P<top>[a-z]+)\s*(?:/|\s+per\s+|\s+an?\s+|\s+for\s+each\s+)"
                   r"(?P<per>[a-z]+)\b", re.IGNORECASE)
_SPEED_WORDS = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s*(mph|kph|kmh)\b", re.IGNORECASE)
_LENGTHS = frozenset({"km", "kilometer", "kilometre", "mile", "mi", "m", "meter", "metre", "mph"})
_TIMES = frozenset({"h", "hr", "hour", "minute", "min", "second", "sec", "day", "week"})
_ASKS_TIME = re.compile(r"\b(?:when|what\s+time|how\s+long|how\s+many\s+(?:hours|minutes|days))\b", re.IGNORECASE)
_OBJECT = {"me": "you", "i": "you", "us": "you", "my": "your", "mine": "yours"}


def missing(text: str) -> str | None:
    """What `text`, a calculation, lacks ("her brother's age", "the distance"), or None when
    nothing is read as missing."""
    if not calculation_shaped(text):
        return None
    text = words_to_digits(text)  # "five years older than my cousin"
    if size_without_count(text):
        return "how many you need in all"
    return _comparison_side(text) or _rate_side(text)


def _comparison_side(text: str) -> str | None:
    if len(read(without_named_days(text)).quantities) != 1 or (match := _COMPARISON.search(text)) is None:
        return None
    other = " ".join(_OBJECT.get(word.lower(), word) for word in match["other"].split()[:4])
    other = re.split(r"\s+(?:and|but|so|has|have|had|is|was|did|does|got|get)\b", other)[0].strip()
    if not other or re.search(r"\d", other):
        return None  # "5 more than 3" is a sum, not a missing quantity
    measure = _MEASURE_OF.get(match["word"].lower())
    if measure is None:
        return f"the number for {other}"
    return f"your {measure}" if other == "you" else f"{other}'s {measure}"


def _rate_side(text: str) -> str | None:
    text = _SPEED_WORDS.sub(lambda m: f"{m[1]} {'miles' if m[2].lower() == 'mph' else 'km'} per hour", text)  # 65 mph
    rates = list(_RATE.finditer(text))
    if len(rates) != 1:
        return None
    rate = rates[0]
    top, per = singular(rate["top"]), singular(rate["per"])
    asked_time = _ASKS_TIME.search(text) is not None
    if per in _TIMES and top in _LENGTHS and asked_time:
        needed, name = _LENGTHS, "the distance"
    elif per in _TIMES and top in _LENGTHS:
        needed, name = _TIMES, "how long it goes on"
    elif per not in _TIMES and re.search(rf"\bhow\s+(?:many|much)\s+{re.escape(rate['top'])}", text, re.IGNORECASE):
        needed, name = frozenset({per}), f"the number of {per}s"
    else:
        return None
    others = [q for q in read(without_named_days(text)).quantities if str(q.text) != rate["amount"]]
    return None if any(_counts(q, needed) for q in others) else name


def _counts(quantity: Quantity, units: frozenset[str]) -> bool:
    return bool(set(quantity.unit[:1]) & units)
