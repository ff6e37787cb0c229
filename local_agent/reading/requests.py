"""Requests a tool may answer: a question or an imperative (`asks_tool`) about a subject only
a tool can answer (`tool_subjects`): a calculation, a date, the user's notes, a database, the
user's memory. Chat that merely mentions numbers, days or notes names no subject.
"""

from __future__ import annotations

import re
from typing import Literal

Subject = Literal["calculation", "date", "notes", "database", "memory"]
REQUEST = re.compile(
    r"(\?\s*$)|^(?:please\s+)?(?:(?:can|could|would|will)\s+you\s+)?(?:tell|show|list|find|search|look|check|"
    r"count|calculate|compute|work\s+out|give|get|query|remind|what|which|when|where|who|how)\b", re.I)
# A question with two numbers or more that asks for a total, a share or what is left.
_WORD_PROBLEM = re.compile(
    r"^(?=(?:.*?\d){2})(?=.*\?\s*$).*\b(?:in\s+total|altogether|each|per\s+(?:person|head|month|week|day|year)|"
    r"how\s+much\s+(?:do|does|did|will|would|is|are|was)|how\s+many\s+\w+\s+(?:are|is)\s+left|split|average)\b",
    re.I | re.S)
# Subjects only a tool can answer, in the order the router offers their tools.
_SUBJECTS: tuple[tuple[Subject, re.Pattern[str]], ...] = (
    ("calculation", re.compile(r"\d\s*(?:[-+*/×÷^]|\*\*)\s*\(?\d"
                               r"|\b(?:calculate|compute|square\s+root|percent\s+of|\d+\s*%\s+of)\b", re.I)),
    ("date", re.compile(r"\b(?:what|which)\s+(?:date|day)\b.*\b(?:today|tomorrow|yesterday|ago|from\s+now|from\s+today|"
                r"weeks?\s+from|days?\s+from|months?\s+from)\b|\bhow\s+many\s+(?:days|weeks|months)\s+"
                r"(?:until|till|since|between|left\s+until|ago)\b|\bday\s+of\s+the\s+week\b|"
                r"\b(?:today'?s\s+date|the\s+date\s+today)\b", re.I)),
    ("calculation", _WORD_PROBLEM),
    ("notes", re.compile(r"\b(?:my|the)\s+(?:\w+\s+){0,2}(?:notes?|note\s+files?|text\s+files?|markdown\s+files?)\b",
                         re.I)),
    ("database", re.compile(r"\b(?:in|from|according\s+to|check|query|look\s+up\s+in|search)\s+(?:the|my|our|this)\s+"
                r"(?:database|db|tables?)\b|\bwhat\s+tables\b", re.I)),
    ("memory", re.compile(r"^(?:what|who|which|where|when)(?:\s+\w+)?(?:'s|\s+is|\s+are|\s+was|\s+do|\s+did|\s+am)\s+"
                r"(?:i|my)\b|\b(?:do\s+you\s+remember\s+(?:what|when|where|which|who|if|whether)(?:\s+\w+)?\s+(?:i|my)|"
                r"what\s+did\s+i\s+(?:tell|say\s+to)\s+you|did\s+i\s+(?:ever\s+)?(?:tell|mention\s+to)\s+you|"
                r"what\s+do\s+you\s+(?:know|remember)\s+about\s+me|search\s+(?:your|my)\s+memory)\b", re.I)),
)


def asks_tool(message: str) -> bool:
    """Whether `message` is a question or a request a tool could answer."""
    return REQUEST.search(message.strip()) is not None


def tool_subjects(message: str) -> tuple[Subject, ...]:
    """The subjects `message` asks about, in `_SUBJECTS` order, each once."""
    return tuple(dict.fromkeys(subject for subject, pattern in _SUBJECTS if pattern.search(message)))
