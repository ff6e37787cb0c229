"""Whether a word said holds a word asked: by stem, by a group of the same sense (words.toml
`same_sense`: "mum" for "mother", "work" for "job"), as a member of the kind asked (`kinds`:
"guitar" for "instrument", never "guitar" for "piano"), or as one word spelled another way
("studyin", "alergic"). told.py reads a question's asked words with it."""

from __future__ import annotations

import re
from difflib import SequenceMatcher
from functools import cache

import Stemmer

from ..reading.words import word_list
from .evidence import content_words

SPELLED_LENGTH, SPELLED_RATIO = 6, 0.85  # a word spelled another way: "studyin" for "studyng"
_STEM = Stemmer.Stemmer("english")


@cache
def senses() -> dict[str, frozenset[int]]:
    """Each word of a group of the same sense, with the numbers of its groups."""
    found: dict[str, set[int]] = {}
    for number, group in enumerate(word_list("same_sense")):
        for word in group.split("|"):
            found.setdefault(word, set()).add(number)
    return {word: frozenset(groups) for word, groups in found.items()}


def sense(word: str) -> frozenset[str]:
    """The word's stem and the groups of the same sense it is in, as keys (a word of a group
    with a doubled letter written once is in it too: "cuting")."""
    groups = senses().get(word) or _squeezed_senses().get(_squeezed(word), frozenset())
    return frozenset({_STEM.stemWord(word), *(f"#{group}" for group in groups)})


@cache
def _squeezed_senses() -> dict[str, frozenset[int]]:
    """The groups of each word of a group of six letters or more, by its doubled letters written once."""
    found: dict[str, set[int]] = {}
    for word, groups in senses().items():
        if len(word) >= SPELLED_LENGTH and _squeezed(word) != word:
            found.setdefault(_squeezed(word), set()).update(groups)
    return {word: frozenset(groups) for word, groups in found.items()}


@cache
def _kinds() -> tuple[dict[str, frozenset[int]], dict[str, frozenset[int]]]:
    """The kinds each word names (`kinds`' left sides), and the kinds each word is a member of."""
    naming: dict[str, set[int]] = {}
    members: dict[str, set[int]] = {}
    for number, entry in enumerate(word_list("kinds")):
        names, _, said = entry.partition("=")
        for word in names.split("|"):
            naming.setdefault(word, set()).add(number)
        for word in said.split("|"):
            members.setdefault(word, set()).add(number)
    return ({w: frozenset(k) for w, k in naming.items()}, {w: frozenset(k) for w, k in members.items()})


def a_member(word: str) -> bool:
    """Whether `word` is a member of a kind words.toml lists ("german" of languages)."""
    return word in _kinds()[1]


def names_kind(word: str) -> bool:
    """Whether `word` names a kind whose members words.toml lists ("instrument", "breed")."""
    return word in _kinds()[0]


def asked_sense(word: str) -> frozenset[str]:
    """An asked word's keys: its `sense`, and the kinds it names."""
    return sense(word) | {f"%{kind}" for kind in _kinds()[0].get(word, ())}


def said_sense(word: str) -> frozenset[str]:
    """A said word's keys: its `sense`, and the kinds it is a member of ("beagle" tells a breed,
    "my dog" does not)."""
    return sense(word) | {f"%{kind}" for kind in _kinds()[1].get(word, ())}


def members_of(word: str) -> frozenset[str]:
    """The members of the kinds `word` names ("instrument": "piano", "guitar", ...)."""
    kinds = _kinds()[0].get(word, frozenset())
    return frozenset(member for member, of in _kinds()[1].items() if of & kinds)


def kind_nouns() -> frozenset[str]:
    """The words that name a kind with members ("instrument", "breed")."""
    return frozenset(_kinds()[0])


def shares_sense(asked: set[str], said: set[str]) -> bool:
    """Whether one of `said` holds one of `asked`, by stem, sense or kind ("race" in "the full marathon")."""
    held = set().union(*map(said_sense, said)) if said else set()
    return any(asked_sense(word) & held for word in asked)


@cache
def group_words(word: str) -> frozenset[str]:
    """The words of the groups of the same sense `word` is in, and the members of the kinds it
    names ("dog": "retriever", "beagle")."""
    alike = {other for group in word_list("same_sense") if word in group.split("|") for other in group.split("|")}
    return frozenset(alike) | members_of(word)


def misspelled(word: str, said: set[str]) -> bool:
    """Whether one of `said` is `word` spelled another way ("studyin", "studyng", "alergic"): both
    at least SPELLED_LENGTH letters, and the same with doubled letters written once, or the same
    first three and alike by SPELLED_RATIO (difflib)."""
    if len(word) < SPELLED_LENGTH:
        return False
    return any(len(other) >= SPELLED_LENGTH and (_squeezed(other) == _squeezed(word) or (other[:3] == word[:3]
               and SequenceMatcher(None, word, other).ratio() >= SPELLED_RATIO)) for other in said)


def _squeezed(word: str) -> str:
    """The word with each doubled letter written once: "allergic" and "alergic" are one."""
    return re.sub(r"(\w)\1+", r"\1", word)


def holds_all(asked: set[str], text: str) -> bool:
    """Whether `text` holds each of `asked`, by stem, sense or another spelling."""
    said = content_words(text)
    held = set().union(*map(said_sense, said))
    return all(asked_sense(word) & held or misspelled(word, said) for word in asked)
