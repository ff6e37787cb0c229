"""What a turn says for a word problem, with or without tools: the solver's reply
(reading/problems), unless its reading answers another question than the one asked
(tools/measures.py: a count of tiles asked and an area worked out, the interest asked and the
total worked out), which is said back and asked about instead."""

from __future__ import annotations

from ..reading.problems import reply as problem_reply
from ..reading.problems.solve import Solved
from ..tools.measures import reading_doubt


def problem_said(message: str) -> tuple[str, str] | None:
    """The reply to the word problem in `message` and its outcome ("answer" or "unsure"), or
    None when `message` is no word problem."""
    said = problem_reply(message)
    if said is None:
        return None
    if said.outcome == "answer" and isinstance(said.result, Solved) and (
            doubt := reading_doubt(message, said.result.expression)):
        return f"I'm not sure: {doubt}. {said.result.reading.rstrip('.')}, is that what you meant?", "unsure"
    return said.text, said.outcome
