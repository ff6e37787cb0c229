"""The feeling a message shares, and whether a reply meets it: a 135M model answers "rough day
at work" with "You're welcome! Good day to you." and "can't sleep" with "I'm sorry for your loss."

Definitions (English; the patterns match no other language):
- a message shares something hard when it holds one of `_HARD` ("rough day", "yelled at me",
  "passed away", "can't sleep", "nervous", "lonely", "broke up", "got fired") that no "not",
  "never" or "no longer" just before turns around, and nothing of `_GOOD`;
- it shares good news when it holds one of `_GOOD` ("got promoted", "good day", "got the job",
  "passed my exam", "engaged", "adopted a puppy") and nothing of `_HARD`;
- a reply misses something hard when it cheers (`_CHEERS`: "glad", "great", "wonderful",
  "congratulations", "you're welcome", "enjoy"); it misses good news when it condoles
  (`_CONDOLES`: "sorry", "loss", "too bad", "feel better", "unfortunately").
"""

from __future__ import annotations

import re
from typing import Literal

Feeling = Literal["hard", "good"]
_NOT_BEFORE = re.compile(r"\b(?:not|never|no longer|isn't|wasn't|aren't|don't|didn't)\s+(?:\w+\s+)?$", re.IGNORECASE)
_HARD = re.compile(
    r"\b(?:(?:rough|bad|awful|terrible|horrible|long|hard|tough|crappy|shitty|stressful|exhausting) (?:day|week|night"
    r"|morning|time|year)|sad|upset|unhappy|depressed|miserable|lonely|alone|heartbroken|nervous|anxious|anxiety"
    r"|worried|worry|scared|afraid|terrified|stressed|stress|overwhelmed|exhausted|burn(?:ed|t) out|frustrated"
    r"|angry|furious|annoyed|hurt|crying|cried|(?:can't|cannot|couldn't) sleep|insomnia|sick|ill|flu|fever"
    r"|headache|migraine|injured|pain|yelled|shouted|screamed|fired|laid off|lost my job|broke up|break ?up|dumped"
    r"|divorce|passed away|died|death|funeral|lost my|miss (?:him|her|them|my)|failed|rejected|ugh|struggling"
    r"|rough|worst|brutal|(?:so |really |very )?tired)\b",
    re.IGNORECASE)
_GOOD = re.compile(
    r"\b(?:(?:good|great|amazing|awesome|wonderful|fantastic|perfect|lovely|fun) (?:day|week|night|morning|time|news)"
    r"|promoted|promotion|got the job|new job|got in|accepted|passed (?:my|the)|graduated|won(?!')|engaged|married"
    r"|pregnant|baby|adopted|booked|finally|celebrat\w*|excited|thrilled|proud|happy|so happy)\b",
    re.IGNORECASE)
_CHEERS = re.compile(r"\b(?:glad|great|wonderful|awesome|fantastic|amazing|congrat\w*|you're welcome|enjoy\w*"
                     r"|beautiful|adorable|lovely|exciting|happy|fun|celebrat\w*)\b", re.IGNORECASE)
_CONDOLES = re.compile(r"\b(?:sorry|loss|too bad|feel better|unfortunate(?:ly)?|condolences|that's hard)\b",
                       re.IGNORECASE)
REPLIES: dict[Feeling, str] = {
    "hard": "That sounds hard. I'm here if you want to talk about it.",
    "good": "That's wonderful to hear!",
}


def _holds(pattern: re.Pattern[str], text: str) -> bool:
    return any(not _NOT_BEFORE.search(text[: match.start()]) for match in pattern.finditer(text))


def feeling(message: str) -> Feeling | None:
    """The feeling `message` shares, or None (see the module's definitions)."""
    hard, good = _holds(_HARD, message), _holds(_GOOD, message)
    if hard == good:
        return None
    return "hard" if hard else "good"


def misses_feeling(reply: str, message: str) -> bool:
    """Whether `reply` cheers at something hard or condoles at good news."""
    shared = feeling(message)
    if shared == "hard":
        return bool(_CHEERS.search(reply))
    return shared == "good" and bool(_CONDOLES.search(reply))
