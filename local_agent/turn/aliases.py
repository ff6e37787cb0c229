"""Names that stand for someone or something of the user's: "I have a son, Tobi" makes Tobi the
son, "a golden retriever named Biscuit" makes Biscuit the retriever, so that "Tobi has started
piano lessons" tells what "my son" is learning (told.py counts the word as held).

A name stands for a relation (words.toml `relations`) or an animal (`pets`) when it is said
right after it, with "named"/"called" or a comma between or nothing ("my son Tobi", "a son,
Tobi,", "our cat called Miso"); a name said of two of them stands for neither."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from functools import cache

from ..reading.words import word_set


@cache
def _appositive() -> re.Pattern[str]:
    who = "|".join(sorted(word_set("relations", "pets"), key=len, reverse=True))
    return re.compile(rf"\b(?:my|our|a|an|the)\s+(?:[a-z]+\s+)?(?P<who>{who})\s*,?\s+(?:(?:is\s+)?(?:named|called)\s+)?"
                      r"(?P<name>[A-Z][\w'-]+)")


def aliases(texts: Iterable[str]) -> dict[str, frozenset[str]]:
    """Each name (lower case) that stands for one relation or animal in `texts`, with its word."""
    found: dict[str, set[str]] = {}
    for text in texts:
        for match in _appositive().finditer(text):
            found.setdefault(match["name"].lower(), set()).add(match["who"].lower())
    return {name: frozenset(words) for name, words in found.items() if len(words) == 1}


def alias_words(text: str, named: Mapping[str, frozenset[str]]) -> str:
    """The words the names in `text` stand for, as a text to read beside it ("son"), or ""."""
    said = set(re.findall(r"[a-z][\w'-]*", text.lower()))
    return " ".join(sorted(word for name, words in named.items() if name in said for word in words))
