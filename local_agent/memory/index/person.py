"""A memory about "the user" rewritten as said to the user ("The user lives in Lisbon" -> "You
live in Lisbon"), for the prompt only: a small model copies the note's wording into its answer,
and the answer must speak to the user (scripts/eval_directive.py measures it). Stored text is
never changed.

Only the subject "the user" at the start of a sentence or clause takes a verb agreement; any
other "the user" becomes "you", and "the user's" "your".
"""

from __future__ import annotations

import re

from ...reading.patterns import LazyPattern

_IRREGULAR = {"is": "are", "was": "were", "has": "have", "does": "do", "isn't": "aren't", "wasn't": "weren't",
              "hasn't": "haven't", "doesn't": "don't"}
_ADVERBS = "also|still|often|usually|really|now|recently|never|always|sometimes|already|just|currently|no longer"
_SUBJECT = LazyPattern(rf"(^|[.!?;]\s+|\b(?:and|but)\s+)the user (?:({_ADVERBS}) )?([a-z']+)\b", re.IGNORECASE)
_POSSESSIVE = LazyPattern(r"\bthe user(?:'s|\u2019s)\s", re.IGNORECASE)
_OBJECT = LazyPattern(r"\bthe user\b", re.IGNORECASE)


def addressed(text: str) -> str:
    """`text` with the user as "you"."""
    text = _POSSESSIVE.sub(lambda m: _cased("your ", m.group(0)), text)
    text = _SUBJECT.sub(_subject, text)
    return _OBJECT.sub(lambda m: _cased("you", m.group(0)), text)


_SAID_BACK: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\bI am\b"), "you are"), (re.compile(r"\bI was\b"), "you were"),
    (re.compile(r"\bI('|\u2019)m\b"), r"you\1re"),
    (re.compile(r"\bI(?='|\u2019)"), "you"), (re.compile(r"\bI\b"), "you"),
    (re.compile(r"\bmy\b", re.IGNORECASE), "your"), (re.compile(r"\bmine\b", re.IGNORECASE), "yours"),
    (re.compile(r"\bmyself\b", re.IGNORECASE), "yourself"), (re.compile(r"\bme\b", re.IGNORECASE), "you"),
    (re.compile(r"\bwe\b", re.IGNORECASE), "you"), (re.compile(r"\bour\b", re.IGNORECASE), "your"),
    (re.compile(r"\bours\b", re.IGNORECASE), "yours"), (re.compile(r"\bus\b"), "you"),
]


def second_person(text: str) -> str:
    """A first-person text said back to its speaker: "I'm a nurse and my dog is Rex" -> "you're
    a nurse and your dog is Rex" (words of the second person in it are left as they are)."""
    for pattern, replacement in _SAID_BACK:
        text = pattern.sub(replacement, text)
    return text


def _subject(match: re.Match[str]) -> str:
    lead, adverb, verb = match.group(1), match.group(2), match.group(3)
    you = "You" if not lead.strip() or lead.rstrip()[-1:] in ".!?" else "you"
    words = [you, adverb, _plural(verb)] if adverb else [you, _plural(verb)]
    return lead + " ".join(words)


def _plural(verb: str) -> str:
    """The verb for "you": "lives" -> "live", "watches" -> "watch", "studies" -> "study"."""
    lower = verb.lower()
    if lower in _IRREGULAR:
        return _IRREGULAR[lower]
    if len(lower) > 3 and lower.endswith("ies") and lower[-4] not in "aeiou":
        return verb[:-3] + "y"
    if lower.endswith(("sses", "shes", "ches", "xes", "zes", "oes")):
        return verb[:-2]
    if lower.endswith("s") and not lower.endswith(("ss", "us", "is")) and len(lower) > 2:
        return verb[:-1]
    return verb  # a past tense or a modal: "moved", "can", "will"


def _cased(word: str, like: str) -> str:
    return word[0].upper() + word[1:] if like[:1].isupper() else word
