"""The feeling a message shares, and whether a reply meets it: a 135M model answers "rough day
at work" with "You're welcome! Good day to you." and "can't sleep" with "I'm sorry for your loss."

Definitions (the feeling a message shares is read in reading/feelings.py):
- a reply misses something hard when it cheers (`_CHEERS`: "glad", "great", "wonderful",
  "congratulations", "you're welcome", "enjoy"); it misses good news when it condoles
  (`_CONDOLES`: "sorry", "loss", "too bad", "feel better", "unfortunately").
"""

from __future__ import annotations

import re

from ..reading.feelings import Feeling

_CHEERS = re.compile(r"\b(?:glad|great|wonderful|awesome|fantastic|amazing|congrat\w*|you're welcome|enjoy\w*"
                     r"|beautiful|adorable|lovely|exciting|happy|fun|celebrat\w*)\b", re.IGNORECASE)
_CONDOLES = re.compile(r"\b(?:sorry|loss|too bad|feel better|unfortunate(?:ly)?|condolences|that's hard)\b",
                       re.IGNORECASE)
REPLIES: dict[Feeling, str] = {
    "hard": "That sounds hard. I'm here if you want to talk about it.",
    "good": "That's wonderful to hear!",
}


def misses_feeling(reply: str, shared: Feeling | None) -> bool:
    """Whether `reply` cheers at something hard or condoles at good news (`shared`)."""
    if shared == "hard":
        return bool(_CHEERS.search(reply))
    return shared == "good" and bool(_CONDOLES.search(reply))
