"""Requests a tool may answer: a question or an imperative (`asks_tool`) about a subject only
a tool can answer (`tool_subjects`): a calculation, a date, the user's notes, a database, the
user's memory. Chat that merely mentions numbers, days or notes names no subject.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Literal

from .words import word_list

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


_LEAD = r"^\W*(?:(?:so|ok|okay|hey|hi|um+|quick\s+one|question)\W+)*"
_WH = re.compile(r"^(?:how|what|which|when|where|who|whether|if)\b", re.I)
_IF = re.compile(r"^(?:if|whether)\s+", re.I)
_NEED_TO = re.compile(_LEAD + r"(?:i\s+)?(?:need|have|got|want)\s+to\s+(?=(?:split|convert|calculate|work\s+out|"
                      r"figure\s+out|divide|share|add|find|count)\b)", re.I)

_FIND_OUT = re.compile(r"(?:figure|work|find)\s+out\s+(?=(?:how|what|which|when|whether|if)\b)", re.I)
# "need the date 45 days from today": a value asked for by its noun
_NEED_THE = re.compile(_LEAD + r"(?:i\s+)?(?:need|want)\s+(?=the\s+(?:date|day|number|total|average|sum|difference|"
                       r"price|cost|answer|result|time)\b)", re.I)


@cache
def _openers() -> str:
    """The indirect openers (words.toml `indirect_openers`) as one alternation, longest first."""
    phrases = sorted(word_list("indirect_openers"), key=len, reverse=True)
    return "|".join(r"\s+".join(_with_adverb(phrase.split("_"))) for phrase in phrases)


# "I just want to know", "we really need to know": an adverb after the speaker changes nothing
_SPEAKERS = frozenset({"i", "we", "i'd", "we'd", "i'm"})
_ADVERB = r"(?:(?:just|really|only|also|actually|simply|honestly)\s+)?"


def _with_adverb(words: list[str]) -> list[str]:
    """An opener's words escaped, an adverb allowed after its speaker ("I (just) want to know")."""
    escaped = [re.escape(word) for word in words]
    if words[0] not in _SPEAKERS or len(words) < 2:
        return escaped
    return [escaped[0] + r"\s+" + _ADVERB + escaped[1], *escaped[2:]]


@cache
def _indirect() -> re.Pattern[str]:
    return re.compile(_LEAD + rf"(?:{_openers()})(?:\s+(?:about|on|of))?[\s,:]+(?=\S)", re.I)


# A sentence left open for the number ("so one ticket is", "after 12 weeks I will have", "so I
# am now"), or a terse ask after the numbers (", total cookies", ", the count", "... I need"): it
# asks for the value. Not "that was the total", nor an open end with no number before it.
_LEFT_OPEN = re.compile(r"(?=[^?]*\d)[^?]*(?:\b(?:is|are|will\s+(?:be|have|cost|pay|get)|would\s+(?:be|have|cost)|"
                        r"am\s+now|comes?\s+to|equals|pays?|=)|(?:^|[,;:]\s*)(?:the\s+)?(?:total|count|sum|"
                        r"average|avg|number|amount)(?:\s+[a-z/]+){0,2}|\bi\s+need)\W*$", re.I)


def embedded_question(message: str) -> str:
    """The question a message asks indirectly, as the tools read it: "I need to know how many
    working days are left" -> "how many working days are left"; "can't remember if 2028 is a
    leap year" -> "2028 is a leap year?"; "trying to work out my age, born 1990" -> "what is my
    age, born 1990?"; "I need to split a bill between 4" -> "split a bill between 4"; "3 tickets
    for 45, so one ticket is" -> "3 tickets for 45, so one ticket is?"; any other message as it is."""
    need = _NEED_TO.match(message)
    if need:
        rest = message[need.end():]
        asked = _FIND_OUT.match(rest)  # "need to figure out how many cm a 55-inch screen is": the question
        return _asked(rest[asked.end():]) if asked else rest
    noun = _NEED_THE.match(message)
    if noun:
        return f"what is {message[noun.end():].rstrip('.!?')}?"
    opener = _indirect().match(message)
    if opener is not None:
        return _asked(message[opener.end():])
    if "?" not in message and _LEFT_OPEN.match(message):  # a question mark asks already
        return f"{message.rstrip(' .!,')}?"
    inside = list(_indirect_inside().finditer(message))  # "..., 250 km, need to know how much fuel"
    if not inside:
        return message
    last = inside[-1]
    return f"{message[:last.start('opener')].rstrip()} {_asked(message[last.end():])}"


def _asked(rest: str) -> str:
    """The words after an indirect opener as a question: "if 2028 is a leap year" -> "2028 is a
    leap year?", "the average of 3 and 5" -> "what is the average of 3 and 5?"."""
    rest = rest.strip()
    asked = rest if rest.endswith("?") else f"{rest.rstrip('.!')}?"
    if _IF.match(asked):
        return _IF.sub("", asked, count=1)
    return asked if _WH.match(asked) else f"what is {asked}"


@cache
def _indirect_inside() -> re.Pattern[str]:
    """An indirect opener after a clause's edge inside a message, followed by what it asks."""
    return re.compile(rf"(?:[.!?;,\u2014-]\s*|\s(?:and|so|but|anyway)\s+)(?P<opener>(?:{_openers()}))"
                      rf"(?:\s+(?:about|on|of))?[\s,:]+(?=(?:how|what|which|when|where|who|if|whether|the)\b)", re.I)
