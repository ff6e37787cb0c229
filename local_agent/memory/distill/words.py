"""Word lists that the rules, the third-person rewriting and the candidate checks share, each
written once."""

from __future__ import annotations

import re
from collections.abc import Iterable

# A word, as the memory code counts and matches them: letters, digits and apostrophes ("I'm").
WORD = re.compile(r"[\w']+")

# Adverbs that may stand between "I" and its verb ("I really love ...", "I never smoke").
ADVERBS: tuple[str, ...] = (
    "really", "also", "just", "still", "usually", "always", "often", "actually", "mostly", "totally",
    "absolutely", "definitely", "currently", "now", "sometimes", "recently", "only", "truly", "kind of",
    "kinda", "sort of", "pretty much", "especially", "even", "already", "generally", "honestly",
    "personally", "certainly", "seriously", "mainly", "occasionally", "rarely", "never", "normally",
    "typically",
)

# Function words: an object made of nothing else names nothing ("I love it so much").
FUNCTION_WORDS = frozenset(
    """a an the and or but of to in on at for with from by as is are was were be been it its this
    that these those so very really just too also then than there here my your our their his her
    i me we you they them he she one some any all more most much many lot lots""".split()
)

# Words that carry no content of their own in a fact about the user: the function words, and
# the words every such fact may use ("the user likes ...", "they always go ...").
STOPWORDS = FUNCTION_WORDS | frozenset(
    """about above after again against am because before being below between both can could did do
    does doing down during each few further had has have having hers herself him himself how if into
    itself myself no nor not now off once only other ours out over own same should such theirs
    themselves through under until up what when where which while who whom why will would yours
    yourself user users user's s t don't doesn't didn't i'm i've i'd i'll im ive like likes liked
    love loves loved enjoy enjoys thing things get gets got go goes going went every always never
    still""".split()
)


def adverb_run(words: Iterable[str]) -> str:
    """A regex for any run of `words`, each followed by whitespace (or none at all)."""
    return r"(?:(?:" + "|".join(words) + r")\s+)*"
