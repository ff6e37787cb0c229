"""Arguments grounded in the user's message: for one turn, a tool's argument schema narrowed
to what the message holds, so a small model copies instead of inventing.

The calculator's expression may only combine the numbers written in the message (as the
grounding package reads them: digits or number words, and "a dozen", "half", "twice") and 100
when the message speaks of percent, with operators and
parentheses. A model that reads "7 tickets at 3.56 each" can then write `7 * 3.56` but never
`1.56 * 7`. The pattern is one that llama.cpp's JSON-schema converter turns into a grammar (a
literal '.' is written `[.]`: the converter would emit `\\.` inside a GBNF string, which GBNF
rejects) and that lm-format-enforcer follows."""

from __future__ import annotations

import copy
import dataclasses
import datetime as dt
import re

from ..reading import Reading, read
from .base import Tool

MAX_OPERATIONS = 6
MAX_NUMBERS = 12
# Words that stand for a number in a calculation but are not number words.
_WORDS = {"one": 1, "dozen": 12, "half": 2, "double": 2, "twice": 2, "triple": 3}
_PERCENT = re.compile(r"%|\bpercent", re.I)


def message_numbers(message: Reading | str) -> list[str]:
    """The numbers a calculation on `message` (as the turn read it, or a text) may use, longest
    first (so that the grammar prefers 3.56 to 3)."""
    if not isinstance(message, Reading):
        message = read(message, dt.datetime.now())  # its dates are not used
    found = {value.key for value in message.numbers if "E" not in value.key}
    found |= {str(_WORDS[word]) for word in message.words if word in _WORDS}
    if _PERCENT.search(message.text):
        found.add("100")
    return sorted(found, key=lambda number: (-len(number), number))[:MAX_NUMBERS]


def expression_pattern(numbers: list[str]) -> str:
    number = "(" + "|".join(n.replace(".", "[.]") for n in numbers) + ")"
    operand = rf"\(? ?-?{number} ?\)?"  # a sign too: 10 ** -4
    return rf"^{operand}( ?(\*\*|[-+*/]) ?{operand}){{1,{MAX_OPERATIONS}}}$"


def grounded(tool: Tool, message: Reading | str) -> Tool:
    """`tool` with its arguments narrowed to `message` for this turn; unchanged when the
    tool has no grounding or the message gives it nothing to use."""
    if tool.name != "calculator":
        return tool
    numbers = message_numbers(message)
    if not numbers:
        return tool
    parameters = copy.deepcopy(tool.parameters)
    parameters["properties"]["expression"]["pattern"] = expression_pattern(numbers)
    return dataclasses.replace(tool, parameters=parameters)
