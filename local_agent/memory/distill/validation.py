"""Checks every proposed fact must pass before it may be saved: about the user, grounded in
the user's own message, a statement (not a question or an instruction), and not a copy of the
distill prompt's own examples or instructions."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache

import Stemmer

from ...reading.clauses import Clause, normalize, split_clauses
from ...reading.words import MONTHS, STOPWORDS, WEEKDAYS, WORD
from .person import later_pronouns, third_person

_ABOUT_USER = re.compile(r"\b(?:the user|user's|user)\b", re.I)
_FIRST_PERSON_START = re.compile(r"^(?:I|I'm|I've|my)\b", re.I)
_SPEAKER = frozenset({"i", "me", "my", "mine", "myself"})
GROUNDED_SHARE = 0.6  # at least this share of a fact's content words must be in the message
# "The user will not quit", "The user will start thinking about it": a resolution said in
# passing, not a fact, unless it says when ("will start a job in December") or what they will be.
_RESOLUTION = re.compile(r"^the user (?:will|won't|will not)\b(?!\s+be\b)", re.I)
_WHEN = re.compile(rf"\d|\b(?:{'|'.join(MONTHS + WEEKDAYS)}|next|tomorrow|tonight|"
                   r"year|month|week|summer|winter|spring|autumn|fall)\b", re.I)


@lru_cache(maxsize=1)
def _stemmer() -> Stemmer.Stemmer:
    return Stemmer.Stemmer("english")


def content_stems(text: str) -> set[str]:
    """Stems of the content words of `text` ("The user loves hiking" -> {"hike"})."""
    words = [w.strip("'").lower() for w in WORD.findall(text)]
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


# A fact's attitude ("loves", "hates") and negation ("not", "never") must be the message's own:
# "I keep bees in Lisbon" does not say "The user loves Lisbon".
_LIKES = re.compile(r"\b(?:lov\w*|lik(?:e|es|ed|ing)|enjoy\w*|ador\w*|prefer\w*|fond|favou?rite|fav|fave|passion\w*|"
                    r"into|fan|keen|crazy about|obsessed|can't live without|couldn't live without)\b", re.I)
_DISLIKES = re.compile(r"\b(?:hat(?:e|es|ed|ing)|dislik\w*|detest\w*|despis\w*|loath\w*|can't stand|cannot stand|"
                       r"can not stand|avoid\w*|worst|allergic)\b", re.I)
_NEGATION = re.compile(r"\b(?:not|never|no|nor|don't|doesn't|didn't|can't|cannot|won't|isn't|aren't|wasn't|"
                       r"weren't|haven't|hasn't|dont|cant|nothing|neither)\b|n't\b", re.I)


_NAMING = re.compile(r"\bprefers? to be called\b", re.I)  # the rules' phrasing of "call me X"

# What a correction rejects is not a negation of what it states: "No, my name is Alexa, not Alex."
_CORRECTION_CONTRAST = re.compile(r"^\s*(?:no|nope|actually)\b[,.!]*\s*|,\s*(?:and\s+|but\s+)?not\s+[^,.;!?]+[.!]?\s*$",
                                  re.I)


def attitude_backed(fact: str, message: str, clauses: Sequence[Clause] | None = None) -> bool:
    """Whether each attitude and negation the fact states is stated in the message too, and the
    message's clause the fact draws most on (of its `clauses`, when read already) is not
    negated when the fact is not."""
    fact = _NAMING.sub("", fact)
    if any(pattern.search(fact) and not pattern.search(message) for pattern in (_LIKES, _DISLIKES, _NEGATION)):
        return False
    stems = content_stems(fact)
    said = [clause.text for clause in (clauses if clauses is not None else split_clauses(message))] or [message]
    source = _CORRECTION_CONTRAST.sub("", max(said, key=lambda text: len(stems & content_stems(text))))
    return not (_NEGATION.search(source) and not _NEGATION.search(fact) and not _DISLIKES.search(fact))


# Words of the rules' own phrasing, which the message need not hold ("I'm Priya" -> "The user's name
# is Priya.", "I'm 34" -> "The user is 34 years old.").
_TEMPLATE_WORDS = frozenset(content_stems("name named called years old"))

# Words that name nothing by themselves: "The user is a huge fan too."
_VAGUE = frozenset(content_stems("fan fans huge big too thing stuff lot kind sort guy guys way really definitely "
                                 "totally good great nice cool awesome little that's it's why"))


class CandidateChecker:
    """Judges proposed facts against one prompt's examples and instructions."""

    def __init__(self, prompt_texts: Iterable[str]) -> None:
        self._prompt = [(text, content_stems(text)) for text in prompt_texts if content_stems(text)]

    def reason_to_reject(self, fact: str, message: str, clauses: Sequence[Clause] | None = None) -> str | None:
        """Why `fact` may not be saved from `message` (read into `clauses` when the turn read
        it), or None when it may."""
        if len(WORD.findall(fact)) < 3:
            return "too short to be a fact"
        acts = {c.act for c in split_clauses(fact)}
        if "question" in acts or fact.rstrip().endswith("?"):
            return "a question"
        if "request" in acts or re.search(r"\b(?:you|your|assistant)\b", fact, re.I):
            return "an instruction to the assistant"
        if not _ABOUT_USER.search(fact):
            return "not about the user"
        stems = content_stems(_NAMING.sub("", fact)) - _TEMPLATE_WORDS
        if not stems:
            return "no content"
        if stems <= _VAGUE:
            return "names nothing in particular"
        if _RESOLUTION.match(fact) and not _WHEN.search(fact):
            return "a resolution, not a fact"
        grounded = stems & content_stems(message)
        if len(grounded) / len(stems) >= GROUNDED_SHARE:
            backed = attitude_backed(fact, normalize(message), clauses)
            return None if backed else "an attitude the message does not state"
        if self._copies_prompt(stems):
            return "copied from the prompt"
        return "not grounded in the user's message"

    def _copies_prompt(self, stems: set[str]) -> bool:
        return any(len(stems & theirs) / len(stems) >= 0.5 for _, theirs in self._prompt)
