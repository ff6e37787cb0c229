"""Properties of an everyday reply that a program can check, each defined here once; the
evaluation of everyday replies judges by them and the turn guards some of them.

- apology or refusal: the reply says sorry or apologizes ("I'm sorry, but", "I apologize") or
  declines ("I can't", "I'm unable to", "as an AI"). Sympathy with something the user told
  ("sorry to hear that", "sorry about your ...", and "sorry for your loss" after a message that
  tells of a death or loss) is neither.
- the user addressed as "you": the reply never speaks of "the user" (or "user's").
- length: under 60 words, unless the message asks for more (`asks_for_more`).
- taking the user's identity: the reply says the user's name is its own ("I'm Priya", "my name
  is Priya", "I am called Priya"), or states as its own (a clause in the first person, not
  about "you") most of what one of the user's first-person statements said ("I keep bees in
  Lisbon" after "I keep bees in Lisbon").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from ..memory.distill.validation import content_stems
from ..reading.clauses import Clause, split_clauses
from ..reading.words import compounds

MAX_WORDS = 60
_APOLOGY = re.compile(
    r"\b(?:apologi[sz]e|apologies|my bad|forgive me|(?:i'm|i am|i\u2019m|so|very|really)\s+sorry\b"
    r"(?!\s+(?:to hear|to learn|about (?:your|the)|that you|you)))|^\s*sorry\b(?!\s+to hear)",
    re.IGNORECASE,
)
_REFUSAL = re.compile(
    r"\b(?:i (?:can't|cannot|can not|am unable to|am not able to|won't be able to|don't have (?:access|the ability))"
    r"|i'm (?:unable|not able) to|i\u2019m (?:unable|not able) to|i can\u2019t|as an ai|as a language model"
    r"|i'm just an ai|i do not have (?:access|personal|the ability)|i'm not allowed"
    r"|unable to (?:help|assist|provide))\b",
    re.IGNORECASE,
)
_THE_USER = re.compile(r"\b(?:the user|user's|user\u2019s)\b", re.IGNORECASE)
_MORE = re.compile(
    r"\b(?:in detail|detailed|details|step[- ]by[- ]step|as much (?:space|detail)|at length|elaborate|thorough|"
    r"comprehensive|long|essay|story|stories|full (?:guide|explanation|list)|explain fully|everything about)\b",
    re.IGNORECASE,
)
_CLAIMS_NAME = r"\b(?:i'm|i am|i\u2019m|my name is|my name's|i'm called|i am called|call me|this is)\s+{name}\b"
_ABOUT_YOU = re.compile(r"\b(?:you|your|you're|yours|you've|you'll)\b", re.IGNORECASE)
_OWN = re.compile(r"^(?:I|I'm|I've|I'll|I'd|my)\b", re.IGNORECASE)
TAKEN_SHARE = 0.6  # this share of a user's statement's content words, said as the reply's own


_CONDOLENCE = re.compile(r"\bsorry for your loss\b", re.IGNORECASE)
_LOSS = re.compile(r"\b(?:died|dead|death|passed away|lost|funeral|loss)\b", re.IGNORECASE)


def apologizes_or_refuses(reply: str, message: str = "") -> bool:
    """Whether the reply apologizes or refuses; "sorry for your loss" is sympathy only after a
    message that tells of one."""
    if _CONDOLENCE.search(reply) and _LOSS.search(message):
        reply = _CONDOLENCE.sub("", reply)
    return bool(_APOLOGY.search(reply) or _REFUSAL.search(reply))


def speaks_of_the_user(reply: str) -> bool:
    """Whether the reply speaks of "the user" instead of to them."""
    return bool(_THE_USER.search(reply))


def word_count(text: str) -> int:
    return sum(1 for _ in compounds(text))


def asks_for_more(message: str) -> bool:
    """Whether the message asks for a long answer ("in detail", "step-by-step", "a story")."""
    return bool(_MORE.search(message))


def too_long(reply: str, message: str) -> bool:
    return word_count(reply) >= MAX_WORDS and not asks_for_more(message)


def claims_name(reply: str, names: Iterable[str]) -> str | None:
    """The first of the user's `names` the reply gives as its own, or None."""
    for name in names:
        if name and re.search(_CLAIMS_NAME.format(name=re.escape(name)), reply, re.IGNORECASE):
            return name
    return None


def takes_statement(reply: str, said: Sequence[Clause]) -> str | None:
    """The reply's first-person clause that restates one of the message's first-person
    statements (in its clauses, `said`) as the assistant's own, or None."""
    theirs = [content_stems(c.text) for c in said if c.first_person_statement]
    theirs = [stems for stems in theirs if len(stems) >= 2]
    for clause in split_clauses(reply):
        if not _OWN.match(clause.text) or _ABOUT_YOU.search(clause.text):
            continue
        own = content_stems(clause.text)
        if any(len(own & stems) >= TAKEN_SHARE * len(stems) for stems in theirs):
            return clause.text
    return None
