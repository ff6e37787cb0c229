"""Does a message need a tool, and which? Decided by rules on the user's message alone, before
any model call: a message that needs no tool costs nothing, and nothing a tool returns is ever
routed (the router never sees tool results).

Five outcomes: `direct` (an arithmetic question that arithmetic_rules.py reads exactly, or a
date question the date rules read: the tool runs with arguments filled by rule and its result
is the answer), `problem` (a word problem: a message that states its own quantities and asks
about them, read whole by reading/problems, which answers or says it is unsure), `unsure` (a
date question of a form no rule reads whole, tools/coverage.py: said back and asked), `model`
(the message asks for something only a tool has: the step loop runs with the candidate
tools), `none` (plain chat).
A `model` route whose first candidate needs no judgement to call starts with that call, filled
in by rule (`first`): a search takes the message itself as its query. A tool with a reader
(the SQL tool: sql_reader.py) reads the questions it can into its arguments (`direct`), and
sends those it cannot but that are about its data to the model (`model`).
The `model` rules ask for both a request (a question or an imperative) and a subject only a
tool can answer (both read in reading/requests.py), so chat that merely mentions numbers, days
or notes stays chat. A question or
request that no subject rule reads goes to the intent classifier (intent.py), when there is one."""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ..reading import Reading
from ..reading.problems import asks_about_its_quantities, lacks_a_quantity, read_exactly, reads_times
from ..reading.requests import Subject, asks_tool, tool_subjects
from ..reading.rounding import Rounding, read_rounding
from .arithmetic_rules import arithmetic
from .base import Tool
from .coverage import date_left_out
from .date_rules import date_question
from .intent import Intent

RouteKind = Literal["none", "direct", "problem", "unsure", "model"]

# The tools that answer each subject (reading/requests.py), in the order the loop offers them.
SUBJECT_TOOLS: dict[Subject, tuple[str, ...]] = {
    "calculation": ("calculator",), "date": ("date",), "notes": ("notes_search",),
    "database": ("sql_query", "sql_schema"), "memory": ("memory_search",),
}
SEARCH_QUERY_CHARS = 200  # the search tools' longest query
_ASKS = re.compile(r"\?|^\s*(?:what|whats|what's|when|how|which|count|tell|give)\b", re.IGNORECASE)
_FIRST_BY_RULE = {"memory_search", "notes_search"}
_NUMBER_ALONE = re.compile(r"^\W*(?:(?:what(?:'s|\s+is)|whats|calculate|compute|round)\s+)?(-?\d+(?:\.\d+)?)[\s?.!]*$",
                           re.IGNORECASE)
# A question that counts things, not days or hours ("how many boxes", "how many pages per day").
_TIME_UNITS = (r"(?:days?|weeks?|weekends?|fortnights?|months?|years?|hours?|minutes?|seconds?|mins?|hrs?|nights?|"
               r"mondays?|tuesdays?|wednesdays?|thursdays?|fridays?|saturdays?|sundays?|weekdays?|working|business|"
               r"more|of|times?|holidays?|bank|public|leap|full|whole)")
_COUNTS_THINGS = re.compile(rf"\bhow\s+many\s+(?!{_TIME_UNITS}\b)[a-z]+", re.IGNORECASE)
ROUNDED_SELECTS = ("avg", "sum", "share", "per")  # the database answers a rounding instruction applies to


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


def rounded(route: Route, rounding: Rounding | None) -> Route:
    """A direct route with the rounding asked for: the calculation wrapped in round(), a
    database average, sum or share with its places; other routes as they are."""
    if rounding is None or route.kind != "direct":
        return route
    arguments = dict(route.arguments)
    if route.tools[0] == "calculator":
        arguments["expression"] = f"round({arguments['expression']}, {rounding.places})"
    elif route.tools[0] == "sql_query" and arguments.get("select") in ROUNDED_SELECTS:
        arguments["round"] = rounding.places
    else:
        return route
    places = f"{rounding.places} place{'s' if rounding.places != 1 else ''}"
    return Route(route.kind, route.tools, arguments, f"{route.reason}, rounded to {places}")


class Router:
    """Routes user messages among the enabled tools (names, or the tools themselves: then a
    tool's own reader reads the messages it can, as the SQL tool reads questions about its
    database)."""

    def __init__(self, enabled: Collection[str] | Mapping[str, Tool], intent: Intent | None = None) -> None:
        self.enabled = frozenset(enabled)
        self.intent = intent  # the second opinion on questions the rules route nowhere
        self.tools = dict(enabled) if isinstance(enabled, Mapping) else {}

    def route(self, reading: Reading | str) -> Route:
        """The route of a message the turn has read (or of a text: its rules read the text)."""
        if isinstance(reading, Reading):
            message, request, subjects = reading.tool_text or reading.text, reading.tool_request, reading.tool_subjects
            rounding = reading.rounding
        else:
            message, request, subjects = reading, asks_tool(reading), tool_subjects(reading)
            rounding = read_rounding(reading)
        if rounding is not None:  # "2 decimals" is how to show the answer, not a quantity of the question
            direct = self._rounded(message, rounding)
            message = rounding.masked(message)
        else:
            direct = self._read(message) or self._times(message) or self._direct(message)  # the data first
        if direct is not None:
            return direct
        if "calculator" in self.enabled and (asks_about_its_quantities(message) or lacks_a_quantity(message)):
            return Route("problem", ("calculator",), reason="word problem")
        for name, tool in self.tools.items():  # a terse "distinct users who commented in 2023" asks too
            if tool.asks is not None and tool.asks(message):
                return Route("model", (name,), reason=f"asks for {name}")
        if not request:
            return Route("none", reason="not a question or request")
        tools = tuple(dict.fromkeys(name for subject in subjects for name in SUBJECT_TOOLS[subject]
                                    if name in self.enabled))
        reason = "asks for " + ", ".join(tools)
        if not tools and self.intent is not None:  # a question no rule reads: the classifier's guess
            guess = self.intent.guess(message, self.enabled)
            tools, reason = guess.tools, guess.reason
        if not tools:
            return Route("none", reason=reason if self.intent is not None else "no tool subject")
        if tools[0] in _FIRST_BY_RULE:
            return Route("model", tools, first_arguments(tools[0], message), reason, first=tools[0])
        return Route("model", tools, reason=reason)

    def _rounded(self, message: str, rounding: Rounding) -> Route | None:
        """A direct route of the message without its rounding instruction ("2 decimals" is how
        to show the answer, not a quantity of the question), rounded as asked; a number alone
        is rounded itself ("what is 3.14159 rounded to 2 decimal places")."""
        masked = rounding.masked(message)
        direct = self._read(masked) or self._times(masked) or self._direct(masked)
        if direct is not None:
            return rounded(direct, rounding)
        alone = _NUMBER_ALONE.match(masked)
        if alone is not None and "calculator" in self.enabled:
            return Route("direct", ("calculator",), {"expression": f"round({alone[1]}, {rounding.places})"},
                         "a number to round")
        return None

    def _read(self, message: str) -> Route | None:
        """A tool whose reader reads the message into its arguments (its rules ask for a
        form of question and a thing the tool holds, so a terse "total users" is read too)."""
        for name, tool in self.tools.items():
            if tool.reader is not None and (arguments := tool.reader(message)) is not None:
                return Route("direct", (name,), arguments, f"{name} rule")
        return None

    def _times(self, message: str) -> Route | None:
        """Durations and clock times, read exactly before any date rule ("3 hours 40 minutes on
        Monday and 2 hours 35 minutes on Tuesday" is no span of days)."""
        if "calculator" in self.enabled and reads_times(message):
            return Route("problem", ("calculator",), reason="durations and clock times")
        return None

    def _direct(self, message: str) -> Route | None:
        if "calculator" in self.enabled and (expression := arithmetic(message)) is not None:
            return Route("direct", ("calculator",), {"expression": expression}, "arithmetic rule")
        if "date" not in self.enabled:
            return None
        if "calculator" in self.enabled and (read_exactly(message) or _COUNTS_THINGS.search(message)):
            return None  # "27 km at 18 km/h, how many minutes?", "on Saturday ... how many boxes?": no date question
        arguments = date_question(message)
        if (part := date_left_out(message, arguments)) and (_ASKS.search(message) or arguments is not None):
            return Route("unsure", ("date",), {"part": part}, f"no date rule reads {part}")
        return None if arguments is None else Route("direct", ("date",), arguments, "date rule")
