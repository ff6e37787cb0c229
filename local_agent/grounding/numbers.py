"""Numbers in a text, as values: "7", "2,340", "3.5", "twenty-six", "3rd", "twice".

Definition: a number is a run of digits (with thousands commas and one decimal point allowed)
after number words are turned into digits (text2num's `alpha2digit`, English), plus "twice"
(2) and "thrice" (3). A lone "one" is not a number here: "no one", "one of them", "the one you
said" are far more common in answers than the count 1, and a count of one is rarely what an
answer invents; nor are "first" and "second" ("First, ...", "just a second"). Dates and times
give their parts ("20 May 2024" -> 20 and 2024, "6:30" -> 6 and 30). A list marker at the
start of a line ("1.", "2)") is layout, not a number.

Two numbers are the same when their values are equal ("10" and "ten", "2,340" and "2340",
"3rd" and "third").
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import lru_cache

# "forty one" stays a number; "first" and "second" are rarely counts ("First, ...", "a second").
_LONE_ONE = re.compile(r"(?<![\w-])(?<!ty )(?:one|once|first|second)(?![\w-])", re.IGNORECASE)
_MULTIPLES = ((re.compile(r"\btwice\b", re.IGNORECASE), " 2 times "),
              (re.compile(r"\bthrice\b", re.IGNORECASE), " 3 times "))
_LIST_MARKER = re.compile(r"^\s*\d{1,2}[.)]\s+", re.MULTILINE)
_NUMBER = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?(?!\.\d)")
_PLACEHOLDER = "\u2060"  # a lone "one" is kept out of the number words' way (and out of the result)


@dataclass(frozen=True)
class NumberMention:
    """A number found in a text: `text` as found (after words became digits), `value` exact."""

    text: str
    value: Decimal


@lru_cache(maxsize=1024)
def _digits(text: str) -> str:
    """`text` with number words as digits (the library is imported on first use)."""
    from text_to_num import alpha2digit

    kept = _LONE_ONE.sub(_PLACEHOLDER, text)
    for pattern, replacement in _MULTIPLES:
        kept = pattern.sub(replacement, kept)
    try:
        return alpha2digit(kept, "en", threshold=0)
    except (ValueError, IndexError):  # the library refuses some odd runs of number words
        return kept


def numbers(text: str) -> list[NumberMention]:
    """Every number in `text`, in order."""
    found = []
    for match in _NUMBER.finditer(_LIST_MARKER.sub(" ", _digits(text))):
        whole, fraction = match.group(1).replace(",", ""), match.group(2)
        try:
            value = Decimal(f"{whole}.{fraction}" if fraction else whole)
        except InvalidOperation:
            continue
        found.append(NumberMention(match.group(0), value))
    return found


def number_values(texts: Iterable[str]) -> set[Decimal]:
    """The values of every number in `texts`."""
    return {mention.value for text in texts for mention in numbers(text)}


def unsupported_numbers(answer: str, sources: Iterable[str]) -> list[NumberMention]:
    """The numbers of `answer` whose value none of `sources` holds, each value once."""
    known = number_values(sources)
    missing: dict[Decimal, NumberMention] = {}
    for mention in numbers(answer):
        if mention.value not in known:
            missing.setdefault(mention.value, mention)
    return list(missing.values())
