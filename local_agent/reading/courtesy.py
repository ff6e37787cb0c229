"""Messages that are only courtesy: small talk, a greeting or thanks, a goodbye.

Definition of small talk: every word of the message is a greeting, courtesy or small-talk word
or a function word ("hi!", "thanks so much", "how are you?"): it asks nothing a memory could
answer.

Definition of a courtesy message: every word of it is a greeting or thanks word of one of the
languages reading/language.py tells apart (or a word with no content), and at least one is; it
is thanks when it has a thanks word, else a greeting. "hi", "Bonjour !", "¡Muchas gracias!",
"thx 4 that", "how's it going?"; not "one more", "ok" or "yes", which greet nobody.

Definition of a farewell: the message, not a question, ends with a goodbye: in the run of its
last sentences or clauses whose every word is a courtesy word, a word with no content or a
leave-taking word ("ok gtg ttyl", "night night", "catch you later", "Bye for now.", "buenas
noches", "tschüss", "Good night, and thank you."), one holds one of `_GOODBYES` ("bye", "cya",
"good night", "see you", "talk to you tomorrow", "off to bed"; "later" only after see, talk,
catch or speak, or alone). It is a good night when it speaks of night, sleep or bed. Earlier
sentences may say anything ("Thanks, I feel a bit better. Bye for now."). Its language is the
language of its goodbye words (None for English ones: the message's language then).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from .words import (
    COURTESY_WORDS,
    FUNCTION_WORDS,
    GREETINGS,
    GREETINGS_EN,
    LEAVING_WORDS,
    SMALL_TALK_WORDS,
    THANKS,
    WORD,
    words,
)

Courtesy = Literal["greeting", "thanks"]
Farewell = Literal["farewell", "goodnight"]
_GOODBYES: dict[str, re.Pattern[str]] = {code: re.compile(rf"\b(?:{pattern})\b", re.IGNORECASE) for code, pattern in {
    "es": r"adi[oó]s|hasta (?:luego|pronto|mañana)|chao|chau|buenas noches",
    "fr": r"au revoir|[aà] bient[oô]t|bonne nuit",
    "de": r"tsch[uü]ss?|auf wiedersehen|gute nacht|bis (?:bald|später|morgen)",
    "it": r"arrivederci|buonanotte|a presto",
    "pt": r"tchau|at[eé] (?:logo|amanh[aã])|boa noite",
    "nl": r"doei|tot ziens|welterusten",
    "en": r"bye|byebye|goodbye|cya|ttyl|gtg|g2g|laters|good ?night|night|nite|gn|farewell|see (?:ya|you)|take care"
          r"|sweet dreams|(?:talk|speak) (?:to you )?(?:soon|tomorrow)"
          r"|(?:see|talk|catch|speak)(?:\s+\w+){0,3}\s+later|^later"
          r"|(?:off|going|heading|head) to (?:bed|sleep)|(?:gotta|got to|must|have to|need to) go|peace out",
}.items()}
_NIGHT = re.compile(r"\b(?:good ?night|night|nite|gn|sweet dreams|bed|sleep|noches|nuit|nacht|buonanotte|noite|"
                    r"welterusten)\b", re.IGNORECASE)
_CLAUSES = re.compile(r"[.!,;]+\s*|\s+(?:and|but|so)\s+", re.IGNORECASE)


@dataclass(frozen=True)
class Goodbye:
    """A farewell: its kind, the language of its goodbye words, whether the message thanks too,
    and the span of its goodbye clauses."""

    kind: Farewell
    language: str | None
    thanks: bool
    span: tuple[int, int]


def is_small_talk(found: Sequence[str]) -> bool:
    """True when no word of a message (its words, `found`) names anything (see the module's
    definition)."""
    return bool(found) and all(word in SMALL_TALK_WORDS or word in FUNCTION_WORDS for word in found)


def courtesy(found: Sequence[str]) -> Courtesy | None:
    """Whether a message (its words, `found`) is only a greeting or only thanks (see the
    module's definition)."""
    if not found or not all(word in COURTESY_WORDS for word in found):
        return None
    if not any(word in THANKS or word in GREETINGS or word in GREETINGS_EN for word in found):
        return None
    return "thanks" if any(word in THANKS for word in found) else "greeting"


def farewell(message: str) -> Goodbye | None:
    """The goodbye `message` ends with, or None (see the module's definition)."""
    if "?" in message:
        return None
    ending = _ending(message)
    goodbye = next((clause for clause in ending if goodbye_language(clause)), None)
    if goodbye is None:
        return None
    language = next(filter(None, map(goodbye_language, ending)), None)
    start = message.rfind(ending[0]) if ending else len(message)
    return Goodbye("goodnight" if _NIGHT.search(goodbye) else "farewell", language if language != "en" else None,
                   any(word in THANKS for word in words(message)), (max(start, 0), len(message)))


def _ending(message: str) -> list[str]:
    """The message's last clauses whose every word is a courtesy or leave-taking word."""
    ending: list[str] = []
    for clause in reversed([clause for clause in _CLAUSES.split(message) if WORD.search(clause)]):
        if not all(word in LEAVING_WORDS for word in words(clause)):
            break
        ending.append(clause.strip())
    return ending[::-1]


def goodbye_language(text: str) -> str | None:
    """The language of the first goodbye in `text` (`_GOODBYES`), or None when it has none."""
    return next((code for code, pattern in _GOODBYES.items() if pattern.search(text)), None)
