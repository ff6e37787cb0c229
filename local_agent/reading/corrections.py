"""Whether a message corrects something said before."""

from __future__ import annotations

import re

# A message that corrects something said before: its fact replaces the nearest fact on the same
# attribute even when the distiller gave it another key ("No, my name is Alexa").
# It opens the message (after "oh", "oops", "hmm", "sorry", "wait" and the like), or a marker
# anywhere says so: "I meant", "I mixed that up", "typo", "I should say", "..., actually", "X, not Y".
CORRECTION = re.compile(
    r"^\W*(?:(?:oh|oops|ah|hmm+|um+|uh|sorry|wait|well|whoops|ugh)\W+)*"
    r"(?:no|nope|nah|actually|correction|wrong|not quite|that'?s (?:not right|wrong|incorrect)|"
    r"that is (?:not right|wrong|incorrect)|sorry,? i meant|i meant|not anymore|not any ?more)\b"
    r"|\b(?:i meant|i mixed (?:that|it|them) up|i got (?:that|it) (?:wrong|mixed up)|i got mixed up|typo|"
    r"i should (?:say|have said)|my mistake|i misspoke|let me correct)\b"
    r"|,\s*actually\W*$|\b\w+,\s+not\s+(?:the\s+|my\s+|a\s+)?\w+\W*$", re.IGNORECASE)


def is_correction(message: str) -> bool:
    """Whether `message` corrects an earlier statement ("Actually I moved to Porto")."""
    return bool(CORRECTION.search(message))
