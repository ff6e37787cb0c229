"""The answers a record could give: the values and phrases of something the user said, each with
where it stands in the record, for the chooser (choose.py) to pick among.

Definitions:
- a name: a proper name of the record (reading/names.py), "Pixel", "St Mary's", "Night Owls";
- a number, a date or a weekday: as reading/values.py reads them ("9", "12 November", "thursday");
- a phrase: a run of up to three content words (reading/words.py STOPWORDS left out), and each
  of its endings ("retired civil engineer", "civil engineer", "engineer"): English puts the head
  of a noun phrase last;
- a candidate the question already says (its every word among the question's words) answers
  nothing and is left out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from ..reading.names import proper_names
from ..reading.values import extract
from ..reading.words import STOPWORDS, WORD
from .evidence import Candidate as Record
from .evidence import content_words

Kind = Literal["name", "number", "day", "phrase"]
KINDS: tuple[Kind, ...] = ("name", "number", "day", "phrase")
LONGEST_PHRASE = 3  # words
_VALUE_KINDS: dict[str, Kind] = {"number": "number", "date": "day", "weekday": "day"}
_PUNCTUATION = re.compile(r"[.,;:!?()\"\u201c\u201d]+(?:\s|$)|\s[-\u2013\u2014]\s")
_SPEAKER = re.compile(r"^[A-Z][\w'.-]*(?: [A-Z][\w'.-]*)?: ")


@dataclass(frozen=True)
class AnswerCandidate:
    """One possible answer: its text as the record writes it, its kind, the record it comes
    from, and the record's words around it (lower case)."""

    text: str
    kind: Kind
    record: Record
    near: frozenset[str]


def _around(words: list[str], text: str, reach: int = 5) -> frozenset[str]:
    """The record's words within `reach` of where `text` first stands."""
    inner = [w.lower() for w in WORD.findall(text)]
    for at in range(len(words)):
        if words[at:at + len(inner)] == inner:
            return frozenset(words[max(0, at - reach): at] + words[at + len(inner): at + len(inner) + reach])
    return frozenset(words)


def _phrases(text: str) -> list[str]:
    """Runs of content words, at most LONGEST_PHRASE long, and their endings."""
    found: list[str] = []
    for piece in _PUNCTUATION.split(text):
        run: list[str] = []
        for word in [*WORD.findall(piece), ""]:
            if word and word.lower() not in STOPWORDS and not word.isdigit():
                run.append(word)
                continue
            found += [" ".join(run[start:]) for start in range(max(0, len(run) - LONGEST_PHRASE), len(run))]
            run = []
    return found


def propose(record: Record, question: str) -> list[AnswerCandidate]:
    """Every candidate answer `record` holds for `question`, each text once: values, names, phrases."""
    text = _SPEAKER.sub("", record.text)
    asked = content_words(question)
    words = [w.lower() for w in WORD.findall(text)]
    seen: set[str] = set()
    found: list[AnswerCandidate] = []
    values = extract(text, ("number", "date", "weekday"))
    typed: list[tuple[str, Kind]] = [(value.text, _VALUE_KINDS[value.kind]) for value in values]
    typed += [(name, "name") for name in proper_names(text)]
    typed += [(phrase, "phrase") for phrase in _phrases(text)]
    for value, kind in typed:
        key = value.lower()
        said = content_words(value)
        if key in seen or not said or said <= asked:
            continue
        seen.add(key)
        found.append(AnswerCandidate(value, kind, record, _around(words, value)))
    return found
