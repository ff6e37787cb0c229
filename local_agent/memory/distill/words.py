"""The adverbs the rules and the third-person rewriting let stand between "I" and its verb (the
word lists every part of the program reads with are in reading/words.toml)."""

from __future__ import annotations

from collections.abc import Iterable

# Adverbs that may stand between "I" and its verb ("I really love ...", "I never smoke").
ADVERBS: tuple[str, ...] = (
    "really", "also", "just", "still", "usually", "always", "often", "actually", "mostly", "totally",
    "absolutely", "definitely", "currently", "now", "sometimes", "recently", "only", "truly", "kind of",
    "kinda", "sort of", "pretty much", "especially", "even", "already", "generally", "honestly",
    "personally", "certainly", "seriously", "mainly", "occasionally", "rarely", "never", "normally",
    "typically",
)

def adverb_run(words: Iterable[str]) -> str:
    """A regex for any run of `words`, each followed by whitespace (or none at all)."""
    return r"(?:(?:" + "|".join(words) + r")\s+)*"
