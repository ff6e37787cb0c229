"""Rewrite a first-person clause ("I love my dog") as a third-person fact about the user
("The user loves their dog.")."""

from __future__ import annotations

import re

_ADVERBS = (
    r"(?:(?:really|also|just|still|usually|always|often|actually|mostly|totally|absolutely|"
    r"definitely|currently|now|sometimes|recently|only|truly|kind of|kinda|sort of|pretty much|"
    r"especially|even|already|generally|honestly|personally|certainly|seriously|mainly|"
    r"occasionally|rarely|never|normally|typically)\s+)*"
)
# Subject + auxiliary at the start of the clause -> the user's form of it.
_LEADS = [
    (re.compile(r"^my\b", re.I), "The user's"),
    (re.compile(r"^mine\b", re.I), "The user's"),
    (re.compile(r"^me and my\b", re.I), "The user and their"),
    (re.compile(r"^I(?:'m| am)\b", re.I), "The user is"),
    (re.compile(r"^I was\b", re.I), "The user was"),
    (re.compile(r"^I(?:'ve| have)\b", re.I), "The user has"),
    (re.compile(r"^I (?:don't|do not|dont)\b", re.I), "The user does not"),
    (re.compile(r"^I (?:didn't|did not)\b", re.I), "The user did not"),
    (re.compile(r"^I (?:can't|cannot|can not)\b", re.I), "The user cannot"),
    (re.compile(r"^I (?:won't|will not)\b", re.I), "The user will not"),
    (re.compile(r"^I'd\b", re.I), "The user would"),
    (re.compile(r"^I'll\b", re.I), "The user will"),
]
_LEAD_VERB = re.compile(rf"^I\s+({_ADVERBS})([A-Za-z-]+)\b", re.I)
_MODALS = frozenset("can could will would should must might may shall did do does".split())
_IRREGULAR_PAST = frozenset(
    """went grew got had did made took came saw met began became found left lost bought taught
    thought wrote drove ran won spent built sold kept felt heard knew said told gave fell broke
    chose rode swam sang flew ate drank slept stood understood sat paid brought caught fought
    sent lent meant was were became put set let hit cut quit""".split()
)
_THIRD_SINGULAR = {"have": "has", "do": "does", "go": "goes", "be": "is", "am": "is"}
# Later pronouns of the speaker -> "they/their".
_REST = [
    (re.compile(r"\bI(?:'m| am)\b"), "they are"),
    (re.compile(r"\bI was\b"), "they were"),
    (re.compile(r"\bI've\b"), "they have"),
    (re.compile(r"\bI'd\b"), "they would"),
    (re.compile(r"\bI'll\b"), "they will"),
    (re.compile(r"\bI\b"), "they"),
    (re.compile(r"\bmyself\b", re.I), "themselves"),
    (re.compile(r"\bmine\b", re.I), "theirs"),
    (re.compile(r"\bmy\b", re.I), "their"),
    (re.compile(r"\bme\b", re.I), "them"),
]


def third_singular(verb: str) -> str:
    """'love' -> 'loves', 'watch' -> 'watches', 'study' -> 'studies'; past forms unchanged."""
    lower = verb.lower()
    if lower in _THIRD_SINGULAR:
        return _THIRD_SINGULAR[lower]
    if lower in _MODALS or lower in _IRREGULAR_PAST or lower.endswith("ed"):
        return verb
    if re.search(r"(?:s|sh|ch|x|z|o)$", lower):
        return verb + "es"
    if re.search(r"[^aeiou]y$", lower):
        return verb[:-1] + "ies"
    return verb + "s"


def third_person(clause: str) -> str:
    """The clause as a sentence about the user. A clause that does not start with a
    first-person subject only gets its later pronouns changed."""
    text = clause.strip().rstrip(".!?;,")
    head, rest = _rewrite_lead(text)
    for pattern, replacement in _REST:
        rest = pattern.sub(replacement, rest)
    sentence = (head + rest).strip()
    return sentence[:1].upper() + sentence[1:] + "."


def _rewrite_lead(text: str) -> tuple[str, str]:
    for pattern, replacement in _LEADS:
        match = pattern.match(text)
        if match:
            return replacement, text[match.end():]
    match = _LEAD_VERB.match(text)
    if match:
        adverbs = match.group(1)
        return f"The user {adverbs}{third_singular(match.group(2))}", text[match.end():]
    return "", text
