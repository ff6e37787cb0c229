"""Names an answer asserts that its sources do not hold.

A name (reading/names.py) is supported by some texts when every word of it appears in them as
a word, case-insensitively ("Lisbon" is supported by "i live in lisbon"), or when it has several
words and the first is written capitalized in them ("LeBron James" by "LeBron is the man").
"""

from __future__ import annotations

from collections.abc import Iterable

from ..reading.names import OPENERS, bare, capitalized, known_words, proper_names
from ..reading.words import compounds


def unsupported_names(answer: str, sources: Iterable[str]) -> list[str]:
    """The names of `answer` that `sources` do not hold: a name is held when every word of it
    is (case-insensitive), or, for a name of several words, when its first word is a name the
    sources write capitalized ("LeBron James" after "LeBron's skills": the person is known)."""
    sources = list(sources)
    known = known_words(sources)
    named = {bare(w) for text in sources for w, _, _ in compounds(text) if capitalized(w)}
    return [name for name in proper_names(answer, sources)
            if not all(bare(w).lower() in known for w in name.split())
            and not (" " in name and name.split()[0] in named and name.split()[0].lower() not in OPENERS)]
