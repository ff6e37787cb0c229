"""What the program says when the user never told what a question asks: "You haven't told me
what Jonas likes to cook.", the question part turned into what was not told, in the second
person, with what the program does know when a memory is close (told.py decides what was told)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from .evidence import Candidate
from .told import QUESTION_WORD, said_by_user

_EMBED = (
    (re.compile(r"^(?:what(?:'s| is| was)|whats)\s+(?!(?:i|you|we|he|she|they)\b)(?P<rest>.+)$", re.I), "{rest}"),
    (re.compile(r"^(?P<wh>how \w+|where|who|what|which \w+|when)\s+(?P<verb>is|are|was|were|am)\s+"
                r"(?P<rest>(?!(?:i|you|we|he|she|they)\b\s*\w).+)$", re.I), "{wh} {rest} {verb}"),
    (re.compile(r"^(?P<wh>what|where|who|when|which \w+|how \w*)\s*(?P<aux>do|does|did)\s+(?P<rest>.+)$", re.I),
     "{wh} {rest}"),
)
CLOSEST = 2  # records said back with "You haven't told me ..."
_DETERMINERS = frozenset("my your his her our their the a an".split())


def _third_person(rest: str) -> str:
    """"Jonas like to cook" -> "Jonas likes to cook", "my partner do" -> "my partner does"."""
    said = rest.split()
    at = 2 if said[0].lower() in _DETERMINERS else 1
    if len(said) <= at:
        return rest
    verb = said[at]
    said[at] = ("has" if verb == "have" else verb + "es" if re.search(r"(?:s|sh|ch|x|o)$", verb) else
                verb[:-1] + "ies" if re.search(r"[^aeiou]y$", verb) else verb + "s")
    return " ".join(said)
_PERSON = {"my": "your", "i": "you", "me": "you", "am": "are", "mine": "yours", "we": "you", "our": "your",
           "us": "you", "i'm": "you're"}


def asked_phrase(part: str) -> str:
    """A question part as what was not told: "what's my cat's name?" -> "your cat's name",
    "how old is Zara" -> "how old Zara is"; "that" when it reads otherwise."""
    text = re.sub(r"\b(where|who|when|how)'s\b", r"\1 is", part.strip().rstrip("?.! "), flags=re.IGNORECASE)
    for pattern, form in _EMBED:
        match = pattern.match(text)
        if match:
            found = match.groupdict()
            if (found.get("aux") or "").lower() == "does":
                found["rest"] = _third_person(found["rest"])
            said = form.format(**found).split()
            return " ".join(_PERSON.get(w.lower(), w.lower() if n == 0 and QUESTION_WORD.match(w) else w)
                            for n, w in enumerate(said))
    return "that"


def not_told_reply(untold: Sequence[str], known: Candidate | Sequence[Candidate] | None) -> str:
    """"You haven't told me ...", with what the program does know when some memory is close
    (one record, or the closest ones: `closest_told`)."""
    asked = " or ".join(dict.fromkeys(asked_phrase(part) for part in untold))
    said = f"You haven't told me {asked}."
    close = [known] if isinstance(known, Candidate) else list(known or ())
    return " ".join([said, *(candidate.told for candidate in close)])


def closest_told(evidence: Sequence[Candidate], candidates: Sequence[Candidate]) -> list[Candidate]:
    """What the program does know that is closest to a question it was not told the answer of:
    the user's record that shares most words with it (`evidence`, best first), and the user's
    record the recall ranked first (`candidates` are the memories in recall order, then the
    dialogue), which finds one told in other words ("started guitar" for "what instrument am I
    learning?"); each once, at most CLOSEST."""
    found = [*said_by_user(evidence)[:1], *said_by_user(candidates)[:1]]
    return list(dict.fromkeys(found))[:CLOSEST]
