"""Answers about the user's own past: whether a question is one (reading/past.py reads the
question; the memories shown decide when it only names someone), and what its answer may draw on.

Such an answer may assert a proper name or a number only when the memories shown, the dialogue
(with its summary and the system message's date) or the question hold it (`support.unsupported`).
Also here: the user's names the prompt shows, the question an introduction goes on to ask, and
"I don't remember that." with the closest memory.
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from collections.abc import Sequence
from functools import cache

from ..memory.sessions import Turn
from ..reading import Reading
from ..reading.introductions import introduced_name
from ..reading.names import known_words, proper_names
from ..reading.past import PastQuestion
from ..reading.words import FUNCTION_WORDS, word_set, words
from ..tools.question_text import known_word
from .evidence import from_memory
from .names_asked import lowercase_named

DONT_REMEMBER = "I don't remember that."


def asks_about_past(past: PastQuestion | None, memories: Sequence[str] = ()) -> bool:
    """Whether the question read as `past` asks about the conversation's own past: certainly,
    or by naming someone or something that the memories shown name too ("What did Melanie
    paint?")."""
    if past is None:
        return False
    if past.certain:
        return True
    if not past.named:  # no name read on its own: a word the memories hold as a name ("how old is yaw", "yaw's")
        named = {word.lower() for text in memories for name in proper_names(text) for word in name.split()}
        named |= {name for text in memories for name in lowercase_names(text)}
        return any(word.removesuffix("'s") in named for clause in past.clauses for word in words(clause))
    known = known_words(memories)
    return any(all(word.lower() in known for word in name.split())
               for clause in past.clauses for name in proper_names(clause + ".", memories))


def lowercase_names(text: str) -> set[str]:
    """The names written in lower case right after someone of the user's ("my son arjun turned
    7", "wife aino, architect" opening a terse note) or after "named"/"called" ("named her
    pimenta": names_asked.py): a word that is no English word (so not "my son plays")."""
    after = {match[1].lower() for match in _after_relation().finditer(text)
             if match[1].islower() and match[1] not in FUNCTION_WORDS and not known_word(match[1])}
    return after | lowercase_named(text)


@cache
def _after_relation() -> re.Pattern[str]:
    who = "|".join(sorted(word_set("relations", "pets"), key=len, reverse=True))
    return re.compile(rf"(?:\b(?:my|our)\s+|(?:^|[.,;|]\s*))(?:{who})\s*[=:]?\s+([a-z][a-z'-]+)\b", re.IGNORECASE)


_QUESTION_OPENING = re.compile(r"\b(?:what|what's|whats|where|where's|when|who|whose|which|how|do|does|did|is|are)\b",
                               re.IGNORECASE)


def after_introduction(reading: Reading) -> Reading:
    """The reading with its text from the first question opening after the introduced name
    ("Hi, I'm Tomás. Where do I live?" -> "Where do I live?"), which a memory answer reads."""
    name = reading.introduced_name or ""
    at = reading.text.find(name) + len(name) if name and name in reading.text else 0
    opening = _QUESTION_OPENING.search(reading.text, at)
    return dataclasses.replace(reading, text=reading.text[opening.start():]) if opening else reading


def not_remembered(memories: Sequence[str]) -> str:
    """"I don't remember that.", with the closest memory the prompt showed (best first, read
    without the prompt's markup), which the user may find the answer in."""
    if not memories:
        return DONT_REMEMBER
    return f"{DONT_REMEMBER} The closest note I have: {from_memory(memories[0]).note}"


def user_names(memories: Sequence[str], introduced: str | None = None) -> list[str]:
    """The user's names the prompt shows: `introduced` in the message, or in a memory ("Your
    name is Ada", "You prefer to be called Alex")."""
    names = [name for name in (introduced,) if name]
    for text in memories:
        name = introduced_name(text.replace("Your name is", "My name is").replace("You prefer to be called", "Call me"))
        if name:
            names.append(name)
    return names


def earlier_answers(recent: Sequence[Turn], message: str) -> list[str]:
    """The dialogue's answers (`recent`) to other messages than this one (the same question
    asked again may get the same answer)."""
    asked = " ".join(message.split()).lower()
    return [answer.content for question, answer in itertools.pairwise(recent)
            if question.role == "user" and answer.role == "assistant"
            and " ".join(question.content.split()).lower() != asked]
