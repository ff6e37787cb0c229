"""The feeling a message shares.

Definitions (English; the patterns match no other language):
- a message shares something hard when it holds one of `_HARD` ("rough day", "yelled at me",
  "passed away", "can't sleep", "nervous", "lonely", "broke up", "got fired") that no "not",
  "never" or "no longer" just before turns around, and nothing of `_GOOD`;
- it shares good news when it holds one of `_GOOD` ("got promoted", "good day", "got the job",
  "passed my exam", "engaged", "adopted a puppy") and nothing of `_HARD`.
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
def _holds(pattern: re.Pattern[str], text: str) -> bool:
    return any(not _NOT_BEFORE.search(text[: match.start()]) for match in pattern.finditer(text))


def feeling(message: str) -> Feeling | None:
    """The feeling `message` shares, or None (see the module's definitions)."""
    hard, good = _holds(_HARD, message), _holds(_GOOD, message)
    if hard == good:
        return None
    return "hard" if hard else "good"
