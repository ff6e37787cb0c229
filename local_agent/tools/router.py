"""Does a message need a tool, and which? Decided by rules on the user's message alone, before
any model call: a message that needs no tool costs nothing, and nothing a tool returns is ever
routed (the router never sees tool results).

Three outcomes: `direct` (an arithmetic question that arithmetic_rules.py reads, or a date
question the date rules read: the tool runs with arguments filled by rule and its result is
the answer), `model` (the message asks for
something only a tool has: the step loop runs with the candidate tools), `none` (plain chat).
A `model` route whose first candidate needs no judgement to call starts with that call, filled
in by rule (`first`): a search takes the message itself as its query. A tool with a reader
(the SQL tool: sql_reader.py) reads the questions it can into its arguments (`direct`), and
sends those it cannot but that are about its data to the model (`model`).
The `model` rules ask for both a request (a question or an imperative) and a subject only a
tool can answer, so chat that merely mentions numbers, days or notes stays chat. A question or
request that no subject rule reads goes to the intent classifier (intent.py), when there is one."""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ..reading import Reading
from .arithmetic_rules import arithmetic
from .base import Tool
from .date_rules import date_question
from .intent import Intent

RouteKind = Literal["none", "direct", "model"]

_REQUEST = re.compile(
    r"(\?\s*$)|^(?:please\s+)?(?:(?:can|could|would|will)\s+you\s+)?(?:tell|show|list|find|search|look|check|"
    r"count|calculate|compute|work\s+out|give|get|query|remind|what|which|when|where|who|how)\b", re.I)
# A question with two numbers or more that asks for a total, a share or what is left.
_WORD_PROBLEM = re.compile(
    r"^(?=(?:.*?\d){2})(?=.*\?\s*$).*\b(?:in\s+total|altogether|each|per\s+(?:person|head|month|week|day|year)|"
    r"how\s+much\s+(?:do|does|did|will|would|is|are|was)|how\s+many\s+\w+\s+(?:are|is)\s+left|split|average)\b",
    re.I | re.S)
# Subjects only a tool can answer, each with the tools that answer it.
_SUBJECTS: list[tuple[re.Pattern[str], tuple[str, ...]]] = [
    (re.compile(r"\d\s*(?:[-+*/×÷^]|\*\*)\s*\(?\d|\b(?:calculate|compute|square\s+root|percent\s+of|\d+\s*%\s+of)\b",
                re.I), ("calculator",)),
    (re.compile(r"\b(?:what|which)\s+(?:date|day)\b.*\b(?:today|tomorrow|yesterday|ago|from\s+now|from\s+today|"
                r"weeks?\s+from|days?\s+from|months?\s+from)\b|\bhow\s+many\s+(?:days|weeks|months)\s+"
                r"(?:until|till|since|between|left\s+until|ago)\b|\bday\s+of\s+the\s+week\b|"
                r"\b(?:today'?s\s+date|the\s+date\s+today)\b", re.I), ("date",)),
    (_WORD_PROBLEM, ("calculator",)),
    (re.compile(r"\b(?:my|the)\s+(?:\w+\s+){0,2}(?:notes?|note\s+files?|text\s+files?|markdown\s+files?)\b", re.I),
     ("notes_search",)),
    (re.compile(r"\b(?:in|from|according\s+to|check|query|look\s+up\s+in|search)\s+(?:the|my|our|this)\s+"
                r"(?:database|db|tables?)\b|\bwhat\s+tables\b", re.I), ("sql_query", "sql_schema")),
    (re.compile(r"^(?:what|who|which|where|when)(?:\s+\w+)?(?:'s|\s+is|\s+are|\s+was|\s+do|\s+did|\s+am)\s+"
                r"(?:i|my)\b|\b(?:do\s+you\s+remember\s+(?:what|when|where|which|who|if|whether)(?:\s+\w+)?\s+(?:i|my)|"
                r"what\s+did\s+i\s+(?:tell|say\s+to)\s+you|did\s+i\s+(?:ever\s+)?(?:tell|mention\s+to)\s+you|"
                r"what\s+do\s+you\s+(?:know|remember)\s+about\s+me|search\s+(?:your|my)\s+memory)\b", re.I),
     ("memory_search",)),
]


SEARCH_QUERY_CHARS = 200  # the search tools' longest query
_FIRST_BY_RULE = {"memory_search", "notes_search"}


@dataclass(frozen=True)
class Route:
    kind: RouteKind
    tools: tuple[str, ...] = ()  # direct: the one tool; model: the candidate tools
    arguments: dict[str, Any] = field(default_factory=dict)  # direct: its arguments; model: those of `first`
    reason: str = ""
    first: str = ""  # model only: the tool called by rule before the model's first step, if any


def first_arguments(name: str, message: str) -> dict[str, Any]:
    """The arguments of a first call by rule: a search looks for the message itself."""
    if name == "sql_schema":
        return {}
    query = " ".join(message.split())
    if len(query) > SEARCH_QUERY_CHARS:
        query = query[:SEARCH_QUERY_CHARS].rsplit(" ", 1)[0]
    return {"query": query}


class Router:
    """Routes user messages among the enabled tools (names, or the tools themselves: then a
    tool's own reader reads the messages it can, as the SQL tool reads questions about its
    database)."""

    def __init__(self, enabled: Collection[str] | Mapping[str, Tool], intent: Intent | None = None) -> None:
        self.enabled = frozenset(enabled)
        self.intent = intent  # the second opinion on questions the rules route nowhere
        self.tools = dict(enabled) if isinstance(enabled, Mapping) else {}

    def route(self, message: Reading | str) -> Route:
        """The route of a message the turn has read (or of a text: its rules read the text)."""
        message = message.text if isinstance(message, Reading) else message
        direct = self._direct(message) or self._read(message)
        if direct is not None:
            return direct
        if not _REQUEST.search(message.strip()):
            return Route("none", reason="not a question or request")
        for name, tool in self.tools.items():
            if tool.asks is not None and tool.asks(message):
                return Route("model", (name,), reason=f"asks for {name}")
        tools = tuple(dict.fromkeys(name for pattern, names in _SUBJECTS if pattern.search(message)
                                    for name in names if name in self.enabled))
        reason = "asks for " + ", ".join(tools)
        if not tools and self.intent is not None:  # a question no rule reads: the classifier's guess
            guess = self.intent.guess(message, self.enabled)
            tools, reason = guess.tools, guess.reason
        if not tools:
            return Route("none", reason=reason if self.intent is not None else "no tool subject")
        if tools[0] in _FIRST_BY_RULE:
            return Route("model", tools, first_arguments(tools[0], message), reason, first=tools[0])
        return Route("model", tools, reason=reason)

    def _read(self, message: str) -> Route | None:
        """A tool whose reader reads the message into its arguments (its rules ask for a
        form of question and a thing the tool holds, so a terse "total users" is read too)."""
        for name, tool in self.tools.items():
            if tool.reader is not None and (arguments := tool.reader(message)) is not None:
                return Route("direct", (name,), arguments, f"{name} rule")
        return None

    def _direct(self, message: str) -> Route | None:
        if "calculator" in self.enabled and (expression := arithmetic(message)) is not None:
            return Route("direct", ("calculator",), {"expression": expression}, "arithmetic rule")
        if "date" in self.enabled and (arguments := date_question(message)) is not None:
            return Route("direct", ("date",), arguments, "date rule")
        return None
