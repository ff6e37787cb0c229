"""What a turn says for a word problem, and whether a message is one: the one call a tool turn
makes (`reply`), with the outcome it ends in (`answer` or `unsure`).

A message is a word problem when it states at least two quantities and asks something ("we
scored 18 and 27, how many in all?"): it is answered from those quantities, never as a
question about the user's past."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .quantities import read
from .solve import Solved, Unsure, number_text, solve

Outcome = Literal["answer", "unsure"]
_ASKING = frozenset({"how", "what", "what's", "whats", "calculate", "find", "compute", "work"})


@dataclass(frozen=True)
class ProblemReply:
    outcome: Outcome
    text: str  # what the turn says: the answer with its reading, or the reading and a question
    result: Solved | Unsure


def asks_about_its_quantities(text: str) -> bool:
    """Whether `text` states at least two quantities and asks something."""
    reading = read(text)
    if len(reading.quantities) < 2:
        return False
    return "?" in text or bool(_ASKING & set(reading.question_words))


def reply(text: str) -> ProblemReply | None:
    """The reply to a word problem, or None when `text` is none (fewer than two quantities,
    or nothing asked)."""
    if not asks_about_its_quantities(text):
        return None
    result = solve(text)
    if isinstance(result, Solved):
        return ProblemReply("answer", f"{number_text(result.value)}. {result.reading}", result)
    if result.reading:
        return ProblemReply("unsure", f"I'm not sure. {result.reading}", result)
    return ProblemReply("unsure", "I'm not sure how to work this out from what you wrote.", result)
