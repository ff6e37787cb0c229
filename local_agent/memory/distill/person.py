"""Rewrite a first-person clause ("I love my dog") as a third-person fact about the user
("The user loves their dog.")."""

from __future__ import annotations

import re

from ...reading.patterns import LazyPattern
from .words import ADVERBS, adverb_run

_ADVERBS = adverb_run(ADVERBS)
# Subject + auxiliary at the start of the clause -> the user's form of it.
_LEADS = [
    (LazyPattern(r"^my (\w+) and I\b", re.I), r"The user and their \1"),
    (LazyPattern(r"^my\b", re.I), "The user's"),
    (LazyPattern(r"^mine\b", re.I), "The user's"),
    (LazyPattern(r"^me and my\b", re.I), "The user and their"),
    (LazyPattern(r"^I(?:'m| am)\b", re.I), "The user is"),
    (LazyPattern(r"^I was\b", re.I), "The user was"),
    (LazyPattern(r"^I(?:'ve| have)\b", re.I), "The user has"),
    (LazyPattern(r"^I (?:don't|do not|dont)\b", re.I), "The user does not"),
    (LazyPattern(r"^I (?:didn't|did not)\b", re.I), "The user did not"),
    (LazyPattern(r"^I (?:can't|cannot|can not)\b", re.I), "The user cannot"),
    (LazyPattern(r"^I (?:won't|will not)\b", re.I), "The user will not"),
    (LazyPattern(r"^I'd\b", re.I), "The user would"),
    (LazyPattern(r"^I'll\b", re.I), "The user will"),
    (LazyPattern(r"^me\b", re.I), "The user"),
]
_FIRST_MENTION = LazyPattern(r"\b(?:I|I'm|I've|I'd|I'll|my|mine|me)\b", re.I)
_LEAD_VERB = LazyPattern(rf"^I\s+({_ADVERBS})([A-Za-z-]+)\b", re.I)
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
    (LazyPattern(r"\bI(?:'m| am)\b"), "they are"),
    (LazyPattern(r"\bI was\b"), "they were"),
    (LazyPattern(r"\bI've\b"), "they have"),
    (LazyPattern(r"\bI'd\b"), "they would"),
    (LazyPattern(r"\bI'll\b"), "they will"),
    (LazyPattern(r"\bI\b"), "they"),
    (LazyPattern(r"\bmyself\b", re.I), "themselves"),
    (LazyPattern(r"\bmine\b", re.I), "theirs"),
    (LazyPattern(r"\bmy\b", re.I), "their"),
    (LazyPattern(r"\bme\b", re.I), "them"),
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
    """The clause as a sentence about the user: the first mention of the speaker becomes "the
    user" (with the verb agreeing), later ones "they/their/them"."""
    text = clause.strip().rstrip(".!?;,")
    start = _FIRST_MENTION.search(text)
    if start is None:
        return _sentence(text)
    head, rest = _rewrite_lead(text[start.start():])
    if start.start() > 0:
        head = head[:1].lower() + head[1:]
    return _sentence(text[:start.start()] + head + later_pronouns(rest))


def later_pronouns(text: str) -> str:
    """Turn the speaker's pronouns in a sentence that already names the user into
    they/their/them ("The user loves my aunt" -> "The user loves their aunt")."""
    for pattern, replacement in _REST:
        text = pattern.sub(replacement, text)
    return text


def _sentence(text: str) -> str:
    text = text.strip()
    return text[:1].upper() + text[1:] + "."


def _rewrite_lead(text: str) -> tuple[str, str]:
    for pattern, replacement in _LEADS:
        match = pattern.match(text)
        if match:
            return match.expand(replacement), text[match.end():]
    match = _LEAD_VERB.match(text)
    if match:
        adverbs = match.group(1)
        return f"The user {adverbs}{third_singular(match.group(2))}", text[match.end():]
    return "The user", text[1:]  # a bare "I" before something that is not a verb
