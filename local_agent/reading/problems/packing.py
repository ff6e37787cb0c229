"""Packing things into containers of a size, read exactly: how many full containers, how many
containers are needed for all, and how many things are left over.

A container size is written "in bags of 12", "boxes of 6", "a box holds 24", "each bus seats
40", "12 per box" or "24 to a crate"; the other number of the message is how many things there
are (so a message with more numbers is no packing: "3 adults are coming too" is read by the
solver). The question decides the operation, from the words of `packing` in words.toml:

- left over: "how many are left over", "how many remain", "leftover" -> the remainder;
- full containers: "how many full boxes", "can I fill", "fill completely" -> rounded down;
- containers needed: "how many boxes do I need", "should I buy", "to fit them all" -> rounded up.

A question for anything else ("3 boxes of 12 eggs, how many eggs?") is no packing.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from ..words import word_list

_CONTAINERS = "|".join(sorted(word_list("containers"), key=len, reverse=True))
_N = r"(\d+(?:\.\d+)?)"
_SIZE = (
    rf"\b(?:in(?:to)?|of)\s+(?:{_CONTAINERS})\s+of\s+{_N}\b",  # "in bags of 12", "boxes of 6"
    (rf"\b(?:{_CONTAINERS})\s+(?:each\s+)?(?:holds?|takes?|fits?|seats?|carries|carry|contains?|has\s+room\s+for|"
     rf"can\s+(?:hold|take|fit|seat|carry))\s+{_N}\b"),  # "a box holds 24", "each bus seats 40"
    rf"\b{_N}\s+(?:[a-z]+\s+)?(?:per|in\s+(?:a|each|every)|to\s+(?:a|each|every))\s+(?:{_CONTAINERS})\b",
)
_CONTAINER = re.compile(rf"(?:{_CONTAINERS})", re.IGNORECASE)
_SIZES = tuple(re.compile(form, re.IGNORECASE) for form in _SIZE)
_LEFT = re.compile(r"\bleft\s*over\b|\bleftovers?\b|\bremain(?:s|ing)?\b|\bspare\b|\bleft\b(?!\s+(?:in|on|to))",
                   re.IGNORECASE)
_FULL = re.compile(r"\bfull\b|\bfill(?:ed)?\b|\bcompletely\b", re.IGNORECASE)
_NEED = re.compile(r"\bneed(?:ed)?\b|\bshould\s+(?:i|we)\s+(?:buy|get|order|book|rent)\b|\bto\s+(?:fit|carry|hold|take|"
                   r"seat)\b|\brequired\b|\bhow\s+many\s+(?:\w+\s+)?(?:do|does|will|would|must)\s+(?:i|we|you|they)\s+"
                   r"(?:buy|get|order|book|rent)\b", re.IGNORECASE)
_ASKS_COUNT = re.compile(r"\bhow\s+many\b", re.IGNORECASE)


@dataclass(frozen=True)
class Packed:
    answer: float
    reading: str  # "⌊110 ÷ 24⌋ = 4"


def read_packing(text: str) -> Packed | None:
    """The exact answer of a packing question in `text` (digits), or None (the module's forms)."""
    sizes = [match for form in _SIZES for match in form.finditer(text)]
    if len({match[1] for match in sizes}) != 1 or len(_ASKS_COUNT.findall(text)) != 1:
        return None  # no size, two sizes, or two questions ("how many groups, how many left over?")
    size_text = sizes[0][1]
    others = [m for m in re.finditer(r"(?<![\w.])(\d+(?:\.\d+)?)(?![\w.])\s*(\w*)", text) if m[1] != size_text]
    if len(others) != 1 or float(size_text) == 0 or _CONTAINER.fullmatch(others[0][2]):
        return None  # one count of things besides the size ("for 3 boxes" counts containers)
    other = others[0][1]
    count, size = float(other), float(size_text)
    question = text[_ASKS_COUNT.search(text).start():]  # type: ignore[union-attr]
    asks = [name for name, pattern in (("left", _LEFT), ("full", _FULL), ("need", _NEED)) if pattern.search(question)]
    if len(asks) != 1 and asks != ["left", "full"]:  # "left over after filling as many bags as possible"
        return None
    if asks[0] == "left":
        return Packed(count - size * math.floor(count / size), f"{other} mod {size_text} = "
                      f"{count - size * math.floor(count / size):g}")
    if asks[0] == "full":
        return Packed(math.floor(count / size), f"⌊{other} ÷ {size_text}⌋ = {math.floor(count / size)}")
    return Packed(math.ceil(count / size), f"⌈{other} ÷ {size_text}⌉ = {math.ceil(count / size)}")


def size_without_count(text: str) -> bool:
    """Whether `text` (digits) gives a container size and no other number, and asks how many
    containers ("cups come in packs of 20. how many packs do I need?": how many cups is not said)."""
    sizes = {match[1] for form in _SIZES for match in form.finditer(text)}
    if len(sizes) != 1:
        return False
    others = [found for found in re.findall(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.])", text) if found not in sizes]
    asked = re.search(rf"\bhow\s+many\s+(?:{_CONTAINERS})\b", text, re.IGNORECASE)
    return not others and asked is not None
