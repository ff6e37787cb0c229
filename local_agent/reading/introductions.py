"""The name a message introduces the user by.

Definition: an introduction gives the user's name: "my name is X", "name's X", "call me X", "I
go by X", "I'm X" or "I am X" ending its clause (or followed by an age or "nice to meet you"),
"it's X" or "X here" opening the message after a greeting, "introduce myself: X". X is a
capitalized word or two, or, in a message that opens with a greeting or in "I'm x, <age>", a
lower-case word that is not an everyday state ("tired", "back", "here") or word form (-ed,
-ing, -y, ...). A preferred name ("call me Alex") wins over the name.
"""

from __future__ import annotations

import re

from .words import FUNCTION_WORDS

_GREETING = re.compile(r"^\W*(?:hi+|hey+|hello+|hiya|heya|howdy|yo|greetings|good (?:morning|afternoon|evening)|"
                       r"morning|evening|hola|bonjour|hallo|ciao|ol[aá])\b", re.IGNORECASE)
_CAPITAL = r"(?-i:[A-Z\u00C0-\u00DE][\w'\u2019-]*)"
_ANY = r"[^\W\d_][\w'\u2019-]*"
_NAME_TWO = rf"{_CAPITAL}(?:\s+{_CAPITAL})?"
# Clause ends: punctuation, "and", the end, or what follows a name in an introduction.
_AFTER = r"(?=\s*(?:[,.!;:?)]|$|\band\b|\bbut\b|\bby the way\b|\bnice\b|\bpleased\b|\d|\b(?:a|an|the)\s))"
# A title before a name is no name: "I am Dr. Amara Nwosu", "my name is Mr. Mori".
_TITLE = r"(?:(?-i:Dr|Mr|Mrs|Ms|Mx|Prof|Rev|Sir|Dame|Doctor|Professor)\.?\s+)?"
_STATED = (
    rf"\bmy (?:first |full |real )?name(?:'s| is)\s+{_TITLE}(?P<a>{_NAME_TWO}|{_ANY})",
    rf"\bname'?s\s+(?P<b>{_NAME_TWO}|{_ANY})",
    rf"\b(?:I(?:'m| am) called|people call me)\s+(?P<c>{_NAME_TWO}|{_ANY})",
    rf"\bintroduce myself\W+(?P<d>{_NAME_TWO})",
    # French, Spanish, German, Italian, Portuguese, Dutch
    (rf"\b(?:je m'appelle|mon nom est|me llamo|mi nombre es|ich heiße|ich heisse|mein name ist|mi chiamo|"
     rf"me chamo|chamo-me|o meu nome é|ik heet|mijn naam is)\s+(?P<e>{_NAME_TWO}|{_ANY})"),
)
_PREFERRED = re.compile(rf"\b(?:call me|I go by|I prefer to be called|my nickname is)\s+(?P<n>{_NAME_TWO}|{_ANY})",
                        re.IGNORECASE)
_I_AM = re.compile(rf"\b(?:I'm|I am|im|i m)\s+{_TITLE}(?P<n>{_NAME_TWO}){_AFTER}", re.IGNORECASE)
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
always never currently actually literally kinda sort kind pretty quite too all still
born gone grown known seen taken given made left paid sent""".split())  # "I am born 14 July 1985": no name
_WORD_FORMS = ("ed", "ing", "y", "ful", "ous", "ive", "ic", "al", "ble", "less", "ish", "ent", "ant", "ly")


def _lower_name_ok(word: str) -> bool:
    low = word.lower()
    return low not in _STATES and low not in FUNCTION_WORDS and not low.endswith(_WORD_FORMS) and len(low) > 1


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
