"""Recap questions: "what did we talk about today / last week?".

A recap question asks what the conversation covered ("what did we talk about", "what have we
discussed", "remind me what we talked about", "summarize our chats") with a time ("today",
"last week", "on Monday"; none means today).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence

from .dates import DateSpan

_RECAP = re.compile(
    r"\b(?:what|which \w+)\s+(?:did|have|had)\s+(?:we|you and i|i and you)\s+(?:\w+\s+)?"
    r"(?:talk(?:ed)?|chat(?:ted)?|discuss(?:ed)?|speak|spoken|spoke|cover(?:ed)?|go over|gone over|went over)\b"
    r"|\bwhat\s+were\s+we\s+(?:talking|chatting)\s+about\b"
    r"|\b(?:summari[sz]e|recap|sum up)\s+(?:our|the|what we)\s+(?:\w+\s+)?"
    r"(?:conversations?|chats?|talks?|discussed|talked)\b"
    r"|\bwhat\s+(?:topics|things|subjects)\s+did\s+we\b",
    re.IGNORECASE,
)


def is_recap_question(message: str) -> bool:
    """Whether `message` asks what the conversation covered."""
    return bool(_RECAP.search(message))


def recap_span(message: str, dates: Sequence[DateSpan], now: dt.datetime) -> DateSpan | None:
    """The period a recap question asks about (today when it names none), or None when
    `message` is not a recap question."""
    if not _RECAP.search(message):
        return None
    if dates:
        return dates[0]
    start = now.replace(hour=0, minute=0, second=0, microsecond=0)
    return DateSpan(start, start + dt.timedelta(days=1), "today", "day")
