"""Grounding: the program decides what an answer may assert. values.py finds the numbers,
dates, weekdays, times and names a text asserts, normalized; check.py says which of an
answer's values no source (tool results, the question, memories) supports.

    from local_agent.grounding import check
    verdict = check("12.60 dollars, on Friday 10 April 2026", ["15% of 84 = 12.6", "..."])
    verdict.ok, verdict.unsupported

For answers about the user's own past (issue 25): numbers.py (counts in digits or words, by
value), names.py (proper names, sentence openers apart), language.py (the language of a text by
its stopwords), support.py (the names and numbers of an answer no source holds). Which questions
are about the past and the properties of an everyday reply read clauses, so they live in the
turn (turn/memory_answers.py, turn/reply_checks.py).

This package imports nothing else of local_agent, so every layer may use it."""

from ..reading.values import KINDS, Kind, Value, extract, number_key
from .check import Support, Verdict, check

__all__ = ["KINDS", "Kind", "Support", "Value", "Verdict", "check", "extract", "number_key"]
