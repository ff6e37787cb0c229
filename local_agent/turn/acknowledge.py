"""Replies the program builds from what the user said, where the 135M model takes the user's
name as its own or moves a fact from one person to another: the acknowledgement of an
introduction ("Nice to meet you, Priya!") and of a correction ("Got it, Alexa." / "Got it: you
live in Braga now."), and of a plain statement the model's reply failed its checks for.

Definitions (what an introduction and a correction are: reading/introductions.py and
reading/corrections.py):
- what is said back: the message's statements, in the second person ("my dog is called Milo"
  -> "your dog is called Milo"); the others as they were written.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..memory.index.person import second_person
from ..reading import Reading
from ..reading.clauses import Clause
from .phrases import phrase

# What only marks a correction: left out of what is said back.
_MARKS = re.compile(r"^(?:(?:no|nope|nah|wait|sorry|oops|whoops|oh|ah|hmm+|um+|well|so|actually|correction|typo|"
                    r"wrong \w+|my mistake|my bad)\b\W*)+", re.IGNORECASE)
_ONLY_MARK = re.compile(r"^(?:I should (?:say|have said)|I mixed (?:that|it|them) up|I got (?:that |it )?mixed up|"
                        r"I got (?:that|it) wrong|I misspoke|let me correct (?:that|myself)|I meant)$", re.IGNORECASE)
_TRAILING_MARK = re.compile(r",?\s*actually$", re.IGNORECASE)
def said_back(clauses: Sequence[Clause]) -> str:
    """A message's statements (its `clauses`) said back to the user ("your dog is called Milo,
    Max is your neighbour's dog"), without the words that only mark a correction; empty when it
    has none."""
    parts = []
    for clause in clauses:
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


def introduction_reply(reading: Reading) -> str | None:
    """"Nice to meet you, Priya!" (in the message's language) for an introduction, or None."""
    name = reading.introduced_name
    return phrase("meet", reading.language, name=name) if name else None


def correction_reply(reading: Reading) -> str | None:
    """"Got it, Alexa." for a corrected name, "Got it: <what was said back>." for any other
    correction, or None when the message is no correction (or says nothing to say back)."""
    if not reading.correction:
        return None
    if reading.introduced_name:
        return f"Got it, {reading.introduced_name}."
    said = said_back(reading.clauses)
    return f"Got it: {said}." if said else None
