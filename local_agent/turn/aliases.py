"""Names that stand for someone or something of the user's: "I have a son, Tobi" makes Tobi the
son, "a golden retriever named Biscuit" makes Biscuit the retriever, so that "Tobi has started
piano lessons" tells what "my son" is learning (told.py counts the word as held).

A record that speaks of someone only by "she" or "he" ("She was 16.") is read with the one
relation or animal of the user's that their other records of the same day name ("My cat Mochi
passed away last night"), when that one agrees with the pronoun (words.toml `female_relations`,
`male_relations`; an animal agrees with either): `with_antecedents`. What is said back stays
the record's own words.

A name stands for a relation (words.toml `relations`) or an animal (`pets`) when it is said
right after it, with "named"/"called" or a comma between or nothing ("my son Tobi", "a son,
Tobi,", "our cat called Miso"); a name said of two of them stands for neither."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from functools import cache

from ..reading.words import word_set
from .evidence import Candidate


@cache
def _appositive() -> re.Pattern[str]:
    who = "|".join(sorted(word_set("relations", "pets"), key=len, reverse=True))
    # "my son Tobi", "a son, Tobi", and in a terse note "wife Ada, 2 kids" (the relation opening it)
    return re.compile(rf"(?:\b(?:[Mm]y|[Oo]ur|[Aa]n?|[Tt]he)\s+(?:[a-z]+\s+)?(?P<who>{who})"
                      rf"|(?:^\W*|(?<=[.,;:!?] ))(?P<opening>(?i:{who})))"
                      r"\s*,?\s+(?:(?:is\s+)?(?:named|called)\s+)?(?P<name>[A-Z][\w'-]+)")


def _who(match: re.Match[str]) -> str:
    """The relation or animal an appositive names, in lower case."""
    return (match["who"] or match["opening"]).lower()


def aliases(texts: Iterable[str]) -> dict[str, frozenset[str]]:
    """Each name (lower case) that stands for one relation or animal in `texts`, with its word."""
    found: dict[str, set[str]] = {}
    for text in texts:
        for match in _appositive().finditer(text):
            name = re.sub(r"['’]s$", "", match["name"]).lower()  # "my sister Fiona's": Fiona
            found.setdefault(name, set()).add(_who(match))
    return {name: frozenset(words) for name, words in found.items() if len(words) == 1}


def alias_words(text: str, named: Mapping[str, frozenset[str]]) -> str:
    """The words the names in `text` stand for, as a text to read beside it ("son"), or ""."""
    said = set(re.findall(r"[a-z][\w'-]*", text.lower()))
    return " ".join(sorted(word for name, words in named.items() if name in said for word in words))


_PRONOUN_OPENING = re.compile(r"^\W*(?P<pronoun>she|he|her|his)\b", re.IGNORECASE)


@cache
def _own_someone() -> re.Pattern[str]:
    who = "|".join(sorted(word_set("relations", "pets"), key=len, reverse=True))
    return re.compile(rf"\b(?:my|our)\s+(?:[a-z]+\s+)?(?P<who>{who})\b", re.IGNORECASE)


def someone_of_theirs(text: str) -> str | None:
    """The one relation or animal of the user's `text` names, with its name when it says one
    ("my cat Mochi", "my granddaughter Zainab", "my mom"), or None (none, or two)."""
    said = {match["who"].lower() for match in _own_someone().finditer(text)}
    if len(said) != 1:
        return None
    who = said.pop()
    named = {m["name"] for m in _appositive().finditer(text) if _who(m) == who}
    return f"my {who} {named.pop()}" if len(named) == 1 else f"my {who}"


def _agrees(pronoun: str, someone: str) -> bool:
    who = someone.split()[1]
    if pronoun in ("she", "her"):
        return who not in word_set("male_relations")
    return who not in word_set("female_relations")


def with_antecedents(candidates: Sequence[Candidate]) -> list[Candidate]:
    """The candidates, each that opens with "she" or "he" and names no one of the user's read with the one
    relation or animal the other candidates of its day name ("She is studying law in Lagos."
    with "(my granddaughter Zainab)")."""
    named = {id(c): someone_of_theirs(c.text) for c in candidates}
    read: list[Candidate] = []
    for candidate in candidates:
        opening = _PRONOUN_OPENING.match(candidate.text)
        if opening is None or named[id(candidate)]:
            read.append(candidate)
            continue
        pronoun = opening["pronoun"].lower()
        near = {found for other in candidates if other is not candidate and other.day == candidate.day
                and (found := named[id(other)]) and _agrees(pronoun, found)}
        if len(near) != 1:
            read.append(candidate)
            continue
        someone = f" ({near.pop()})"
        read.append(replace(candidate, text=candidate.text + someone, note=candidate.note + someone))
    return read
