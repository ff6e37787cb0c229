"""Replies the program builds from what the user said, where the 135M model takes the user's
name as its own or moves a fact from one person to another: the acknowledgement of an
introduction ("Nice to meet you, Priya!") and of a correction ("Got it, Alexa." / "Got it: you
live in Braga now."), and of a plain statement the model's reply failed its checks for.

Definitions:
- an introduction gives the user's name: "my name is X", "name's X", "call me X", "I go by X",
  "I'm X" or "I am X" ending its clause (or followed by an age or "nice to meet you"), "it's X"
  or "X here" opening the message after a greeting, "introduce myself: X". X is a capitalized
  word or two, or, in a message that opens with a greeting or in "I'm x, <age>", a lower-case
  word that is not an everyday state ("tired", "back", "here") or word form (-ed, -ing, -y, ...).
  A preferred name ("call me Alex") wins over the name.
- a correction (memory/distill/saving.is_correction) replaces something said before.
- what is said back: the message's statements, in the second person ("my dog is called Milo"
  -> "your dog is called Milo"); the others as they were written.
"""

from __future__ import annotations

import re

from ..memory.distill.clauses import split_clauses
from ..memory.distill.saving import is_correction
from ..memory.index.person import second_person
from .phrases import phrase

_GREETING = re.compile(r"^\W*(?:hi+|hey+|hello+|hiya|heya|howdy|yo|greetings|good (?:morning|afternoon|evening)|"
                       r"morning|evening|hola|bonjour|hallo|ciao|ol[aá])\b", re.IGNORECASE)
_CAPITAL = r"(?-i:[A-Z\u00C0-\u00DE][\w'\u2019-]*)"
_ANY = r"[^\W\d_][\w'\u2019-]*"
_NAME_TWO = rf"{_CAPITAL}(?:\s+{_CAPITAL})?"
# Clause ends: punctuation, "and", the end, or what follows a name in an introduction.
_AFTER = r"(?=\s*(?:[,.!;:?)]|$|\band\b|\bbut\b|\bby the way\b|\bnice\b|\bpleased\b|\d|\b(?:a|an|the)\s))"
_STATED = (
    rf"\bmy (?:first |full |real )?name(?:'s| is)\s+(?P<a>{_NAME_TWO}|{_ANY})",
    rf"\bname'?s\s+(?P<b>{_NAME_TWO}|{_ANY})",
    rf"\b(?:I(?:'m| am) called|people call me)\s+(?P<c>{_NAME_TWO}|{_ANY})",
    rf"\bintroduce myself\W+(?P<d>{_NAME_TWO})",
    # French, Spanish, German, Italian, Portuguese, Dutch
    (rf"\b(?:je m'appelle|mon nom est|me llamo|mi nombre es|ich heiße|ich heisse|mein name ist|mi chiamo|"
     rf"me chamo|chamo-me|o meu nome é|ik heet|mijn naam is)\s+(?P<e>{_NAME_TWO}|{_ANY})"),
)
_PREFERRED = re.compile(rf"\b(?:call me|I go by|I prefer to be called|my nickname is)\s+(?P<n>{_NAME_TWO}|{_ANY})",
                        re.IGNORECASE)
_I_AM = re.compile(rf"\b(?:I'm|I am|im|i m)\s+(?P<n>{_NAME_TWO}){_AFTER}", re.IGNORECASE)
_I_AM_LOWER = re.compile(rf"\b(?:I'm|I am|im)\s+(?P<n>{_ANY}){_AFTER}", re.IGNORECASE)
_OPENING = re.compile(rf"^\W*(?:(?:it's|it is|this is)\s+(?P<a>{_NAME_TWO}|{_ANY})(?=\W*$|[.!,])"
                      rf"|(?P<b>{_NAME_TWO}|{_ANY})\s+here\b)", re.IGNORECASE)
# Words that follow "I'm" without being a name, checked in lower case.
_STATES = frozenset("""
a an the so very really just not also still here there back home new done fine good great ok okay
well sorry sure glad happy sad tired sick ill busy free ready late early lost bored hungry thirsty
cold hot alone single married divorced pregnant retired vegan vegetarian old young fine alright
awake asleep curious nervous anxious afraid scared excited thrilled upset angry mad stressed
worried interested in on at out off up down over away about into from with like almost only
always never currently actually literally kinda sort kind pretty quite too all still""".split())
_WORD_FORMS = ("ed", "ing", "y", "ful", "ous", "ive", "ic", "al", "ble", "less", "ish", "ent", "ant", "ly")


def _lower_name_ok(word: str) -> bool:
    low = word.lower()
    return low not in _STATES and not low.endswith(_WORD_FORMS) and len(low) > 1


def _capitalize(name: str) -> str:
    return " ".join(part[:1].upper() + part[1:] for part in name.split())


def introduced_name(message: str) -> str | None:
    """The name the user introduces themself by (the preferred one when given), or None."""
    preferred = _PREFERRED.search(message)
    if preferred and (preferred.group("n")[:1].isupper() or _lower_name_ok(preferred.group("n"))):
        return _capitalize(preferred.group("n"))
    for pattern in _STATED:
        match = re.search(pattern, message, re.IGNORECASE)
        if match:
            name = next(group for group in match.groups() if group)
            if name[:1].isupper() or _lower_name_ok(name):
                return _capitalize(name)
    return _name_from_greeting(message)


def _name_from_greeting(message: str) -> str | None:
    """"I'm X" ending its clause, and "it's X" / "X here" opening a message after a greeting."""
    greeted = bool(_GREETING.match(message))
    match = _I_AM.search(message)
    if match and match.group("n").split()[0].lower() not in _STATES:
        return match.group("n")
    lower = _I_AM_LOWER.search(message)
    if lower and _lower_name_ok(lower.group("n")) and (greeted or re.match(r"\W*\d", message[lower.end():])):
        return _capitalize(lower.group("n"))
    opening = _OPENING.match(_GREETING.sub("", message, count=1)) if greeted else None
    name = opening and (opening.group("a") or opening.group("b"))
    if name and (name[:1].isupper() or _lower_name_ok(name)):
        return _capitalize(name)
    return None


# What only marks a correction: left out of what is said back.
_MARKS = re.compile(r"^(?:(?:no|nope|nah|wait|sorry|oops|whoops|oh|ah|hmm+|um+|well|so|actually|correction|typo|"
                    r"wrong \w+|my mistake|my bad)\b\W*)+", re.IGNORECASE)
_ONLY_MARK = re.compile(r"^(?:I should (?:say|have said)|I mixed (?:that|it|them) up|I got (?:that |it )?mixed up|"
                        r"I got (?:that|it) wrong|I misspoke|let me correct (?:that|myself)|I meant)$", re.IGNORECASE)
_TRAILING_MARK = re.compile(r",?\s*actually$", re.IGNORECASE)
def said_back(message: str) -> str:
    """The message's statements said back to the user ("your dog is called Milo, Max is your
    neighbour's dog"), without the words that only mark a correction; empty when it has none."""
    parts = []
    for clause in split_clauses(message):
        text = _TRAILING_MARK.sub("", _MARKS.sub("", clause.text)).strip(" ,:;")
        if clause.act != "statement" or not text or _ONLY_MARK.match(text):
            continue
        text = second_person(text)
        parts.append(text if _starts_with_name(text) else text[:1].lower() + text[1:])
    return ", ".join(parts)


def _starts_with_name(text: str) -> bool:
    first = text.split(" ", 1)[0]
    return first[:1].isupper() and first.lower().strip(",.") not in _SENTENCE_OPENERS


_SENTENCE_OPENERS = frozenset("you your you're it it's its the my a an this that there we our i'm".split())


def introduction_reply(message: str, language: str | None = None) -> str | None:
    """"Nice to meet you, Priya!" (in the message's `language`) for an introduction, or None."""
    name = introduced_name(message)
    return phrase("meet", language, name=name) if name else None


def correction_reply(message: str) -> str | None:
    """"Got it, Alexa." for a corrected name, "Got it: <what was said back>." for any other
    correction, or None when `message` is no correction (or says nothing to say back)."""
    if not is_correction(message):
        return None
    name = introduced_name(message)
    if name:
        return f"Got it, {name}."
    said = said_back(message)
    return f"Got it: {said}." if said else None
