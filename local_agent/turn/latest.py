"""The latest value answers (issue 43, item 3): "where do I work now?", asked after "I work at
Zalando as a designer." and, two weeks later, "Update: I quit Zalando, I'm freelancing now.",
was answered "You are currently working at Zalando": both messages were recalled, and the
older one is the one that holds the question's words.

Definitions:
- a change: a record that reads as a correction (reading/corrections.py) or says that something
  changed (words.toml `changes`: "now", "anymore", "update", "quit", "change of plan", ...);
- a record's update: a change said after it that shares a content word with it besides the
  names the question holds (the subject: "Jonas"): "the party is at the community hall now"
  updates "a surprise party at my aunt Bea's house";
- in recall, for a question about the value now, a change is shown before the older records
  it shares a word with (`latest_first`), so that it is among the memories the prompt keeps;
- for a question whose record (told.py `answering`) has an update about what is asked (it
  holds a word of the question or one of the same sense: "what race am I training for?" after
  "switching to the full marathon", or the question asks for the value now: "now", "currently"),
  the program says both, the old as history and the newest as what holds now
  (`history_reply`), verbatim from the store;
- an update about the same named thing also answers: one that names a thing the record names
  and the question does not ("Mila", "Crete", "the Civic": "Sorry, got that wrong, Mila is 6"
  for "how old is my daughter?" after "My daughter Mila is 5."), holding a value of the kind the
  question asks for, when it asks for one (an age: "Mila is 6", not "Mila loves her school now").
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from functools import cache

from ..memory.index.time_boost import moment_of
from ..reading.corrections import is_correction
from ..reading.names import proper_names
from ..reading.words import MONTHS, WEEKDAYS, word_list
from ..types import MemoryRecord, RecallHit
from .evidence import Candidate, content_words
from .senses import shares_sense
from .told import answering, held_share, said_by_user
from .value_kinds import asked_kind, holds_kind

_ASKS_DAY = re.compile(r"\bwhen\b|\b(?:what|which)\s+(?:date|day)\b", re.IGNORECASE)
_NOW = re.compile(r"\b(?:now|currently|current|present|still|these days|at the moment|any ?more|today)\b",
                  re.IGNORECASE)
_PRESENT = re.compile(r"\b(?:do|does|is|are|am)\b|'s\b|\b(?:where|who|what)re\b", re.IGNORECASE)
_TIME_WORDS = {word.lower() for word in [*WEEKDAYS, *MONTHS]} | {"day", "week", "month", "year", "today", "yesterday"}
_CLAUSE_EDGE = re.compile(r"[.;!?,\n]|\s(?:and|but)\s")
_PAST = re.compile(r"\b(?:did|was|were|used to|use to|before|previously|had|last)\b", re.IGNORECASE)


@cache
def _change() -> re.Pattern[str]:
    phrases = (re.escape(phrase).replace("_", r"\s+") for phrase in word_list("changes"))
    return re.compile(r"\b(?:" + "|".join(phrases) + r")\b", re.IGNORECASE)


def is_change(text: str) -> bool:
    """Whether `text` corrects or says that something changed (see the module's definitions)."""
    return is_correction(text) or bool(_change().search(text))


def update_of(record: Candidate, candidates: Sequence[Candidate], subjects: frozenset[str]) -> Candidate | None:
    """The newest change among `candidates` said after `record` that shares a content word with
    it other than `subjects`, or None."""
    shared = content_words(record.text) - subjects
    changes = [c for c in candidates if c is not record and c.newer_than(record) and is_change(c.text)
               and shared & content_words(c.text) and c.text != record.text]
    newest: Candidate | None = None
    for change in changes:
        if newest is None or change.newer_than(newest):
            newest = change
    return newest


def changed(question: str, candidates: Sequence[Candidate]) -> tuple[Candidate, Candidate] | None:
    """The record that answers `question` and its update, when it has one and the update is
    about what is asked: it holds a word of the question besides its names (or one of the same
    sense), a name of the question that asks for a day ("the Vienna conference has been moved to 21
    April" for "on what date am I presenting in Vienna?"), or the question asks for the value now
    ("now", "currently"). One-part questions only."""
    told = answering(question, candidates)
    if len(told) != 1:
        return None
    names = {word for name in proper_names(question + ".") for word in content_words(name)}
    update = update_of(told[0], said_by_user(candidates), frozenset(names))
    if update is None:
        return None
    about = shares_sense(content_words(question) - names, content_words(update.text))
    named = bool(names & content_words(update.text)) and _ASKS_DAY.search(question) is not None
    same_thing = _names_same_thing(question, told[0], update, frozenset(names))
    return (told[0], update) if about or named or same_thing or _NOW.search(question) else None


def _names_same_thing(question: str, record: Candidate, update: Candidate, names: frozenset[str]) -> bool:
    """Whether `update` names a thing `record` names and the question does not ("Crete"; not a
    month or a day), and holds a value of the kind the question asks for, if it asks for one."""
    named = {word for clause in _asked_clauses(question, record.text) for name in proper_names(clause)
             for word in content_words(name)} - names - _TIME_WORDS  # "April" is no thing
    shared = frozenset(named & {word for name in proper_names(update.text) for word in content_words(name)})
    if not shared:
        return False
    kind, _ = asked_kind(question)
    return not kind or holds_kind(update.text, kind) or holds_kind(update.text, kind, shared)


def _asked_clauses(question: str, text: str) -> list[str]:
    """The clauses of `text` that hold most of what `question` asks ("I drive a 2015 Honda Civic"
    of a rundown, for "what car do I drive?")."""
    clauses = [clause for clause in _CLAUSE_EDGE.split(text) if clause.strip()]
    shares = [held_share(question, clause, frozenset()) for clause in clauses]
    best = max(shares, default=0.0)
    return [clause for clause, share in zip(clauses, shares, strict=True) if share == best and best > 0]


def outdated(old: Candidate, update: Candidate, text: str, day: dt.date | None) -> bool:
    """Whether a record (its `text`, said on `day`) is one `update` changed: said no later than
    `old`, holding a word that `old` and `update` share, not a day's name ("pottery" of "the first
    pottery class was the day after, on the Friday": the fact noted from the old message too)."""
    if day is None or old.day is None or day > old.day:
        return False
    linking = content_words(old.text) & content_words(update.text) - _TIME_WORDS
    return bool(linking & content_words(text))


def history_reply(old: Candidate, new: Candidate) -> str:
    """The old record said back as history, then the newest as what holds since."""
    since = new.told[:1].lower() + new.told[1:]
    return f"{old.told} Since then, {since}"


def asks_now(question: str) -> bool:
    """Whether `question` asks for a value as it is now: "now", "currently", or the present
    tense ("where do I work?"), not the past ("where did I work?", "used to")."""
    return bool(_NOW.search(question) or (_PRESENT.search(question) and not _PAST.search(question)))


def latest_first(question: str, hits: Sequence[RecallHit]) -> list[RecallHit]:
    """Recalled records (best first), with each change ("Update: I quit Zalando, I'm freelancing
    now.") moved up to just before the highest older record it shares a content word with, for
    a question that asks for the value now (`asks_now`); as they came otherwise."""
    ordered = list(hits)
    if not asks_now(question):
        return ordered
    names = {word for name in proper_names(question + ".") for word in content_words(name)}
    for hit in [h for h in hits if h.record.kind != "digest" and is_change(h.record.text)]:
        at = ordered.index(hit)
        words = content_words(hit.record.text) - names
        older = next((n for n, other in enumerate(ordered[:at]) if _said(other.record) < _said(hit.record)
                      and words & content_words(other.record.text)), None)
        if older is not None:
            ordered.insert(older, ordered.pop(at))
    return ordered


def _said(record: MemoryRecord) -> float:
    """When the record was said (its provenance date, else when it was stored), in seconds."""
    moment = moment_of(record.provenance.date or "")
    return moment.timestamp() if moment else record.created
