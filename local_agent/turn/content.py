"""Whether an answer states something of a person that the records do not hold: a job, a place,
a relation ("Tomás is a doctor" when the records say Jonas is a nurse).

Definitions:
- a property claim: a person ("you", "your partner", a capitalized name, "he", "she") then a
  verb that states a property (`_VERBS`: "is", "works as", "lives in", "moved to", "teaches",
  "plays", ...) and what follows it up to the clause's end;
- its claimed words: the content words (evidence.py) of what follows, up to a conjunction that
  opens another clause ("and", "but", "who", ...), at most FIRST_WORDS;
- a claimed word is held when a record or the question has it, or a word of the same stem
  ("driving" for "driver" is not: "drive" and "driver" are two stems);
- an answer states an unheld property when some claim has a claimed word no source holds.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import Stemmer

from .evidence import content_words

FIRST_WORDS = 3
_STEM = Stemmer.Stemmer("english")
_VERBS = (r"is|are|am|was|were|'re|'s|works?(?:\s+(?:as|at|in|for))?|worked(?:\s+(?:as|at|in|for))?|"
          r"lives?(?:\s+in)?|lived(?:\s+in)?|moved\s+to|teach(?:es)?|taught|plays?|played|studies|study|"
          r"studied|drives?|runs?|owns?|coach(?:es)?|planted|plants?|built|builds?")
_CLAIM = re.compile(
    rf"\b(?:you|your\s+\w+|he|she|they|[A-Z][\w'-]+)\s*(?:{_VERBS})\s+"
    r"(?P<what>(?:(?!\b(?:and|but|who|which|where|while|because|so)\b)[^.,;:!?\n()])+)")


def _stems(words: Iterable[str]) -> set[str]:
    return {_STEM.stemWord(word) for word in words}


def unheld_claims(answer: str, sources: Iterable[str]) -> list[str]:
    """The claimed words of `answer` that none of `sources` holds (see the module's definitions)."""
    held = _stems(word for source in sources for word in content_words(source))
    missing: list[str] = []
    for match in _CLAIM.finditer(answer):
        said = [word for word in re.findall(r"[\w'-]+", match["what"]) if content_words(word)]
        for word in said[:FIRST_WORDS]:
            stems = _stems(content_words(word))
            if stems and not stems & held and word not in missing:
                missing.append(word)
    return missing
