"""The assistant's answers as memories: a long answer is cut into passages of a few sentences,
so that a title recommended in its middle is found by a question about it alone."""

from __future__ import annotations

import re

PASSAGE_SENTENCES = 3
PASSAGE_CHARS = 320  # a passage grows sentence by sentence up to this length
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[A-Z0-9*-])|\n+")


def sentences(text: str) -> list[str]:
    return [part.strip() for part in _SENTENCE_END.split(text) if part and part.strip()]


def passages(text: str) -> list[str]:
    """`text` in passages of at most PASSAGE_SENTENCES sentences and about PASSAGE_CHARS
    characters (a longer sentence is a passage of its own); empty text has none."""
    found: list[str] = []
    current: list[str] = []
    for sentence in sentences(text):
        if current and (len(current) == PASSAGE_SENTENCES
                        or len(" ".join(current)) + len(sentence) + 1 > PASSAGE_CHARS):
            found.append(" ".join(current))
            current = []
        current.append(sentence)
    if current:
        found.append(" ".join(current))
    return found
