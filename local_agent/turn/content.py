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
- an answer states an unheld property when some claim has a claimed word no source holds;
- an answer denies a held property when it says someone is not (does not, never) what a
  source says they are, unnegated ("You are not vegetarian." after "I've been vegetarian");
- an answer to a question about someone else (a relation, a pet, a name: "what does my
  boyfriend do?") speaks of them when it has their word, one of the same sense, a name that
  stands for them in the records ("Biscuit" for the dog), or a pronoun ("he", "her").
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import Stemmer

from ..reading.words import words
from .aliases import aliases
from .evidence import Candidate, content_words
from .senses import group_words
from .told import parts
from .value_kinds import owner_of

FIRST_WORDS = 3
_STEM = Stemmer.Stemmer("english")
_VERBS = (r"is|are|am|was|were|'re|'s|works?(?:\s+(?:as|at|in|for))?|worked(?:\s+(?:as|at|in|for))?|"
          r"lives?(?:\s+in)?|lived(?:\s+in)?|moved\s+to|teach(?:es)?|taught|plays?|played|studies|study|"
          r"studied|drives?|runs?|owns?|coach(?:es)?|planted|plants?|built|builds?")
_CLAIM = re.compile(
    rf"\b(?:you|your\s+\w+|he|she|they|[A-Z][\w'-]+)\s*(?:{_VERBS})\s+"
    r"(?P<what>(?:(?!\b(?:and|but|who|which|where|while|because|so)\b)[^.,;:!?\n()])+)")


# "you are not vegetarian", "you don't eat meat", "he isn't a nurse": a claim said negated
_NEGATED = re.compile(r"\b(?:you|your\s+\w+|he|she|they|[A-Z][\w'-]+)\s+(?:(?:are|is|am|was|were|do|does|did)\s+"
                      r"(?:not|never)|aren't|isn't|wasn't|weren't|don't|doesn't|didn't|never|no\s+longer)\s+"
                      r"(?:\w+\s+)?(?:(?:a|an|the)\s+)?(?P<what>[\w'-]+)", re.IGNORECASE)
_DENIAL = re.compile(r"\b(?:not|never|no|don't|doesn't|didn't|isn't|aren't|wasn't|weren't)\b", re.IGNORECASE)


def denied_claims(answer: str, sources: Iterable[str]) -> list[str]:
    """The words `answer` says are not so of someone that a source says are, unnegated ("You
    are not vegetarian." when the record says "I've been vegetarian for ten years")."""
    said = list(sources)
    found: list[str] = []
    for match in _NEGATED.finditer(answer):
        stem = _STEM.stemWord(match["what"].lower())
        for source in said:
            for word in re.finditer(r"[\w'-]+", source):
                before = source[max(0, word.start() - 20):word.start()]
                if _STEM.stemWord(word[0].lower()) == stem and not _DENIAL.search(before):
                    found.append(match["what"])
                    break
    return list(dict.fromkeys(found))


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


_THIRD_PERSON = frozenset("he him his she her hers they them their theirs".split())


def speaks_of_whom(answer: str, question: str, candidates: Iterable[Candidate]) -> bool:
    """Whether `answer` speaks of each someone else the question asks about (see the module's
    definitions): "You've got a job interview in Milan" is no answer to "what kind of company
    does my boyfriend work for?"."""
    said = {word.removesuffix("'s") for word in words(answer.lower())}
    standing = aliases(candidate.text for candidate in candidates)
    for owner in {owner_of(part, frozenset()) for part in parts(question)}:
        alike = set(owner) | {word for group in map(group_words, owner) for word in group}
        names = {name for name, stands in standing.items() if stands & alike}
        if owner and not said & (alike | names | _THIRD_PERSON):
            return False
    return True
