"""What a turn says for a word problem, and whether a message is one: the one call a tool turn
makes (`reply`), with the outcome it ends in (`answer` or `unsure`).

A message is a word problem when it states at least two quantities and asks for an amount
("we scored 18 and 27, how many in all?"): it is answered from those quantities, never as a
question about the user's past. A named day ("on 7 July, 2023") holds no quantity of the
problem, and a question about what was said or about someone ("What did I say about 2 cats
and 3 dogs?", "What movie did Nate watch on 1 May, 2022?") asks for no amount."""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass
from typing import Literal

from ..date_phrases import PHRASES
from .quantities import read
from .solve import Solved, Unsure, number_text, solve

Outcome = Literal["answer", "unsure"]
_ASKING = frozenset({"how", "what", "what's", "whats", "calculate", "find", "compute", "work"})
# The question asks for an amount: "how many/much/long/...", or a word that names one.
_HOW = frozenset({"many", "much", "long", "far", "old", "often", "big", "tall", "heavy", "fast"})
_AMOUNT = frozenset({"total", "sum", "altogether", "together", "combined", "left", "remain", "remaining", "remains",
                     "each", "per", "average", "difference", "cost", "costs", "price", "pay", "paid", "spend",
                     "spent", "owe", "change", "calculate", "compute", "work", "product", "number"})
_NAMED_DAYS = frozenset({"iso", "slashed", "ordinal_of", "day_month", "month_day", "month_year", "year"})
# A question about what was said, or a name asked for, is no calculation: "What did I say
# about 2 cats and 3 dogs?", "I have 2 kids and 3 dogs, what should I name my cat?"
_NOT_AN_AMOUNT = frozenset({"say", "said", "tell", "told", "mention", "mentioned", "remember", "recall", "name",
                            "call", "called", "recommend", "suggest", "think", "who", "why", "where"})


@dataclass(frozen=True)
class ProblemReply:
    outcome: Outcome
    text: str  # what the turn says: the answer with its reading, or the reading and a question
    result: Solved | Unsure


def without_named_days(text: str) -> str:
    """`text` with each named day ("7 July, 2023", "in 2022", "2024-03-01") made "a day"."""
    return PHRASES.sub(lambda m: "a day" if m.lastgroup in _NAMED_DAYS else m.group(), text)


def asks_about_its_quantities(text: str) -> bool:
    """Whether `text` states at least two quantities (a named day is none) and asks (a
    question mark or a question word) for an amount."""
    reading = read(without_named_days(text))
    words = reading.question_words
    if len(reading.quantities) < 2 or _NOT_AN_AMOUNT & set(words):
        return False
    if "?" not in text and not _ASKING & set(words):
        return False
    how = any(word == "how" and after in _HOW for word, after in itertools.pairwise(words))
    return how or bool(_AMOUNT & set(words))


@functools.lru_cache(maxsize=64)  # the router and the reply plan both ask of one message
def reply(text: str) -> ProblemReply | None:
    """The reply to a word problem, or None when `text` is none (fewer than two quantities,
    or nothing asked)."""
    if not asks_about_its_quantities(text):
        return None
    result = solve(without_named_days(text))
    if isinstance(result, Solved):
        return ProblemReply("answer", f"{number_text(result.value)}. {result.reading}", result)
    if result.reading:
        return ProblemReply("unsure", f"I'm not sure. {result.reading}", result)
    return ProblemReply("unsure", "I'm not sure how to work this out from what you wrote.", result)
