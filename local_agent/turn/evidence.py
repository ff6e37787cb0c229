"""Whether a memory answer answers from what was said, and the program's answer when it does not.

A 135M model asked "where's my next marathon?" right after being told "next one is in Boston in
April" answers "I'm so glad you're enjoying your next marathon!": no name or number it lacks a
source for, and no answer either. So a memory answer is also checked against the evidence.

Definitions:
- content words: a text's words, lower case, without stop words or the words of asking
  ("remember", "tell"), "'s" and a plural "s" dropped, "six" read as "6";
- the candidates: the memories the prompt showed (best first), then the user's earlier messages
  in the dialogue (newest first), each read without the prompt's markup (the day, who said it)
  and with the day it was said or noted;
- relevant: a candidate, not itself a question, that shares a content word with the question;
  the evidence is the one that shares most (the first of those on a tie);
- an answer draws on the evidence when it holds a content word of a relevant candidate that the
  question does not hold ("Boston", "peanuts", "Sam").
An answer that does not is replaced by the evidence said back, in the program's words: "You told
me your partner Sam made you a cake to celebrate.", "On 19 May 2024 you said: "..."".
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..memory.index.render import TURN_MEMORY_CHARS
from ..reading.clauses import only_asks, split_clauses
from ..reading.words import NUMBER_WORDS, STOPWORDS, words
from .acknowledge import said_back
from .answering import NOTED

_ASKING = frozenset("remember recall tell know again please said say told mention mentioned".split())
_NUMBERS = {word: str(number) for number, word in enumerate(NUMBER_WORDS, 1)}
_TURN = re.compile(r"^- (?P<day>\d{1,2} [A-Z][a-z]+ \d{4}), (?P<who>you|me): (?P<text>.*)$", re.DOTALL)
_NOTED_DAY = re.compile(r"\(noted (?P<day>\d{1,2} [A-Z][a-z]+ \d{4})\)")
_LAST_DAY = re.compile(r"(\d{1,2} [A-Z][a-z]+ \d{4})$")
_DIGEST = re.compile(r"^Conversation of (?P<day>.+?), in short: (?P<text>.*)$", re.DOTALL)
_SPEAKER = re.compile(r"^[A-Z][\w'.-]*(?: [A-Z][\w'.-]*)?: ")  # an imported conversation's line: "Melanie: ..."
_ADDRESSED = re.compile(r"^(?:You|Your|You're|You've|You'd|You'll)\b")


@dataclass(frozen=True)
class Candidate:
    """Something said that an answer may draw on: its words, the note it makes on its own ("You
    keep bees.", 'On 2 May 2024 you said: "..."'), and how the program says it back."""

    text: str
    note: str
    told: str
    day: dt.date | None = None  # when it was said or noted; None: this session's dialogue (the newest)

    def newer_than(self, other: Candidate) -> bool:
        """Whether this was said after `other` (the dialogue after every memory)."""
        if self.day is None or other.day is None:
            return self.day is None and other.day is not None
        return self.day > other.day


def content_words(text: str) -> set[str]:
    """The content words of `text` (see the module's definition)."""
    content = set()
    for found in words(text):
        word = _NUMBERS.get(found.removesuffix("'s"), found.removesuffix("'s"))
        if word in STOPWORDS or word in _ASKING:
            continue
        content.add(word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word)
    return content


def from_memory(rendered: str) -> Candidate:
    """A memory as the prompt showed it, read without its markup."""
    turn, digest = _TURN.match(rendered), _DIGEST.match(rendered)
    if turn:
        who = "you said" if turn["who"] == "you" else "I told you"
        note = f'On {turn["day"]} {who}: "{turn["text"].strip()}"'
        return Candidate(turn["text"], note, note, _day(turn["day"]))
    if digest:
        note = f'From our conversation of {digest["day"]}: {digest["text"].strip()}'
        last = _LAST_DAY.search(digest["day"])
        return Candidate(digest["text"], note, note, _day(last[1]) if last else None)
    noted = _NOTED_DAY.search(rendered)
    fact = NOTED.sub("", rendered).strip()
    opening = fact[:1].lower() + fact[1:] if _ADDRESSED.match(fact) else fact
    return Candidate(fact, fact, f"From what you told me: {opening}", _day(noted["day"]) if noted else None)


def _day(spoken: str) -> dt.date | None:
    """"2 May 2024" as a date (None when it is no date)."""
    try:
        return dt.datetime.strptime(spoken, "%d %B %Y").date()
    except ValueError:
        return None


def from_dialogue(message: str) -> Candidate:
    """One of the user's earlier messages in the dialogue (a long one quoted as the prompt quotes
    a recalled message: its first TURN_MEMORY_CHARS characters)."""
    text = " ".join(message.split())
    if len(text) > TURN_MEMORY_CHARS:
        text = text[:TURN_MEMORY_CHARS].rsplit(" ", 1)[0] + " ..."
        return Candidate(message, f'You said: "{text}"', f'You said: "{text}"')
    said = said_back(split_clauses(text))
    quoted = f'You said: "{text}"'
    return Candidate(message, quoted, f"You told me {said}." if said else quoted)


def asks_only(candidate: Candidate) -> bool:
    """Whether the record asks ("what city am I living in", "whats the cat called?", or ends
    with a question): a question the user asked is never evidence of what they told."""
    return candidate.text.rstrip().endswith("?") or only_asks(_SPEAKER.sub("", candidate.text))


def said_back_evidence(evidence: Sequence[Candidate], question: str) -> str:
    """The program's answer from the evidence: the best candidate said back, and the next one
    too when it shares as many words with the question."""
    asked = content_words(question)
    best = len(asked & content_words(evidence[0].text))
    tied = [c for c in evidence[1:2] if len(asked & content_words(c.text)) == best]
    return " ".join(candidate.told for candidate in [evidence[0], *tied])


def relevant(question: str, candidates: Sequence[Candidate]) -> list[Candidate]:
    """The candidates that share a content word with the question, most shared first (stable);
    a question asked before ("What is my name?", "what city am I living in") is no evidence."""
    asked = content_words(question)
    shared = [(len(asked & content_words(candidate.text)), candidate) for candidate in candidates
              if not asks_only(candidate)]
    return [candidate for count, candidate in sorted(shared, key=lambda pair: -pair[0]) if count]


def draws_on(answer: str, question: str, evidence: Sequence[Candidate]) -> bool:
    """Whether `answer` holds a content word of the evidence that the question does not."""
    said, asked = content_words(answer), content_words(question)
    return any(said & (content_words(candidate.text) - asked) for candidate in evidence)
