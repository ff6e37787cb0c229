"""Checks every proposed fact must pass before it may be saved: about the user, grounded in
the user's own message, a statement (not a question or an instruction), and not a copy of the
distill prompt's own examples or instructions."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

import Stemmer

from .clauses import split_clauses
from .person import later_pronouns, third_person
from .words import STOPWORDS

_WORD = re.compile(r"[\w']+")
_ABOUT_USER = re.compile(r"\b(?:the user|user's|user)\b", re.I)
_FIRST_PERSON_START = re.compile(r"^(?:I|I'm|I've|my)\b", re.I)
_SPEAKER = frozenset({"i", "me", "my", "mine", "myself"})
GROUNDED_SHARE = 0.6  # at least this share of a fact's content words must be in the message


@lru_cache(maxsize=1)
def _stemmer() -> Stemmer.Stemmer:
    return Stemmer.Stemmer("english")


def content_stems(text: str) -> set[str]:
    """Stems of the content words of `text` ("The user loves hiking" -> {"hike"})."""
    words = [w.strip("'").lower() for w in _WORD.findall(text)]
    return set(_stemmer().stemWords([w for w in words if w and w not in STOPWORDS]))


def mentions(text: str, expected: str) -> bool:
    """Whether `text` mentions every content word of `expected` (stemmed, case-insensitive).
    An `expected` made only of stopwords is matched as a whole word or phrase, and the
    speaker's own pronouns ("me", "my") are matched by "the user", their third-person form."""
    wanted = content_stems(expected)
    if wanted:
        return wanted <= content_stems(text)
    phrase = expected.strip().lower()
    if phrase in _SPEAKER and _ABOUT_USER.search(text):
        return True
    return re.search(rf"\b{re.escape(phrase)}\b", text.lower()) is not None


def as_user_fact(text: str) -> str:
    """A model's memory in the house style: one sentence, first person turned into "The user"."""
    text = " ".join(text.split()).strip().strip('"')
    if _FIRST_PERSON_START.match(text):
        return third_person(text)
    text = later_pronouns(text)
    if text and text[-1] not in ".!?":
        text += "."
    return text[:1].upper() + text[1:]


class CandidateChecker:
    """Judges proposed facts against one prompt's examples and instructions."""

    def __init__(self, prompt_texts: Iterable[str]) -> None:
        self._prompt = [(text, content_stems(text)) for text in prompt_texts if content_stems(text)]

    def reason_to_reject(self, fact: str, message: str) -> str | None:
        """Why `fact` may not be saved from `message`, or None when it may."""
        if len(_WORD.findall(fact)) < 3:
            return "too short to be a fact"
        clauses = split_clauses(fact)
        if any(c.act == "question" for c in clauses) or fact.rstrip().endswith("?"):
            return "a question"
        if any(c.act == "request" for c in clauses) or re.search(r"\b(?:you|your|assistant)\b", fact, re.I):
            return "an instruction to the assistant"
        if not _ABOUT_USER.search(fact):
            return "not about the user"
        stems = content_stems(fact)
        if not stems:
            return "no content"
        grounded = stems & content_stems(message)
        if len(grounded) / len(stems) >= GROUNDED_SHARE:
            return None
        if self._copies_prompt(stems):
            return "copied from the prompt"
        return "not grounded in the user's message"

    def _copies_prompt(self, stems: set[str]) -> bool:
        return any(len(stems & theirs) / len(stems) >= 0.5 for _, theirs in self._prompt)
