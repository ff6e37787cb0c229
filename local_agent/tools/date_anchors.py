"""The day a date question counts from or to, where its reading cannot know it (issue 42): a
reading that counts from today answers another question when the message counts from an event
it does not date ("two weeks after the exam", "100 days after my start date", "between my
birthday and Christmas"), from a day of another year ("March 2 last year": the rules write a
day of the year without its year), or back to a day the question says is past ("how many days
have I worked here" since March 2, read as the coming March 2).

Each is a pattern kept as data; a named day the rules read ("the end of the month", "the
weekend", "Christmas", "tomorrow") is no unknown event."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..reading.words import MONTHS, WEEKDAYS

# Words that, after "the", "my" and the like, name a day the date rules read.
_KNOWN = frozenset({"today", "tomorrow", "yesterday", "now", "day", "week", "weekend", "month", "year", "end", "start",
                    "beginning", "new", "christmas", "xmas", "halloween", "valentine's", "valentines", "next", "this",
                    "last", "first", "1st", "second", "third", "fourth", "rest", "middle", "turn", *MONTHS, *WEEKDAYS})
_ANCHOR = re.compile(r"\b(?:after|before|from|since|until|till|til|to|between|between\b[^?.!]{1,40}?\band)\s+"
                     r"(?P<event>(?:the|my|our|his|her|their|your)\s+([a-z'-]+)(?:\s+([a-z'-]+))?)", re.IGNORECASE)
_DATED = re.compile(r"\s*(?:,|\(|\bon\b|\bis\b|\bwas\b|\bin\b)?\s*(?:the\s+)?(?:\d|(?:today|tonight|tomorrow|next|this|"
                    + "|".join((*MONTHS, *WEEKDAYS)) + r")\b)", re.IGNORECASE)
# A date a few words after an event ("we leave for Paris on June 3").
_DATED_NEAR = re.compile(r"[^.?!;]{0,30}?\b(?:on|in|at|is|was)\b" + _DATED.pattern, re.IGNORECASE)
# An event said as a clause: "5 days after I get back", "before we leave".
_CLAUSE = re.compile(r"\b(?:after|before|until|till|til|since|once|when)\s+(?P<event>(?:i|we|you|he|she|they)\s+"
                     r"(?:\w+)(?:\s+(?!and\b|or\b|but\b)\w+)?)", re.IGNORECASE)
_OTHER_YEAR = re.compile(r"\b(?:last|next)\s+year\b|\bthe\s+year\s+(?:before|after)\b|\byears?\s+ago\b", re.IGNORECASE)
_PAST_SPAN = re.compile(r"\bhow\s+(?:many\s+\w+|long)\s+(?:have|has|had)\s+(?:i|we|you|they|he|she|it)\b"
                        r"(?!.*\b(?:left|until|till|to\s+go|before)\b)", re.IGNORECASE)
_IMPLICIT = frozenset({"today", "tomorrow", "yesterday"})
_JOINERS = frozenset({"and", "or", "on", "in", "is", "was", "to", "from", "at", "for", "with", "will", "be"})


def anchor_left_out(message: str, reading: Mapping[str, Any]) -> str | None:
    """What of the day a date reading counts from or to the message does not give, or None."""
    dates = [str(reading.get(key, "")) for key in ("date", "other")]
    if any(day in _IMPLICIT for day in dates) and (event := unknown_event(message)):
        return event if event.startswith("when ") else f"the date of {event}"
    if any(day.startswith("--") for day in dates) and _OTHER_YEAR.search(message):
        return "the year of the date"
    if (reading.get("operation") == "between" and dates[0] == "today" and dates[1].startswith("--")
            and _PAST_SPAN.search(message)):
        return "whether the date is past or to come"
    return None


def unknown_event(message: str) -> str:
    """The first event the message counts from or to that names no day the rules read and
    is not dated beside it ("the exam", "my start date", "I get back"), or ""."""
    for clause in _CLAUSE.finditer(message):
        if not _DATED_NEAR.match(message, clause.end()):
            return "when " + " ".join(clause["event"].split())
    for match in _ANCHOR.finditer(message):
        first, second = match[2].lower(), (match[3] or "").lower()
        if first in _KNOWN and (not second or second == "of" or second in _KNOWN or first in ("next", "this")):
            continue
        if _DATED.match(message, match.end(2) if second in ("on", "in", "is", "was") else match.end()):
            continue
        words = match["event"].split()
        return " ".join(words if second and second not in _JOINERS else words[:2])
    return ""
