"""A "when" question about the user's life, answered by the program with the day the event
happened, not the day the message telling it was sent.

"When did I fly to Oslo?", asked on 16 November about "flight to Oslo thursday" said on Monday 9
November, is answered "On Thursday 12 November 2026 (4 days ago). On 9 November 2026 you said:
"flight to Oslo thursday"." A small model given the message and its date answers with the date.

Definitions:
- a when-part: a part of the question (told.parts) that asks when ("when did I fly to Oslo",
  "what day is the party", "and when"); its event words are told's asked words of the part, or
  of the other parts when it has none ("what do I coach and when": "coach");
- the records: the user's own messages and facts the prompt showed, each with the day it was
  said, and the dialogue's earlier messages, said today;
- a record tells the event when it holds the event words by told's margin; of those, the ones
  holding most of them, then most of the names the question shares with the records, are read;
- the event's day: the time phrase (dates/event_days.py, each read from the day its record was
  said) in a sentence of the record that holds an event word, the nearest to that word.

The answer is the day, relative to today where it is near ("3 days ago"), then the record it
comes from, verbatim; a recurring day is "Every Wednesday". When the records that tell the event
hold no day for it, or tell different days, the answer says it is not sure and what it was told.
A question with other parts gets, before the when-part's answer, the record that answers each of
them said back (told.answering).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import NamedTuple

from ..dates.clock import spoken_date
from ..dates.event_days import EventDay, event_days, same_clause
from ..dates.when_told import week_before
from ..memory.index.person import addressed
from ..memory.index.render import prompt_text
from ..memory.index.time_boost import moment_of
from ..prompt import ComposedPrompt
from ..reading.words import compounds
from ..types import MemoryRecord, RecallHit
from .evidence import Candidate, content_words, from_memory
from .told import answering, asked_words, held_share, holds_asked, margin, parts, subjects_of, untold_parts

QUOTED_CHARS = 160  # a record quoted in an answer is cut at a word before this length
# "when did I ...", "what day is ...", "and when?"; not "When I was in Rome, what did I eat?"
_WHEN = re.compile(r"^\W*(?:(?:remind me|tell me|do you (?:remember|know)|can you (?:tell|remind) me)\s+when\b"
                   r"|(?:since\s+)?when(?:'s\b|\s+(?:did|do|does|is|was|are|were|will|has|have|had|am|can|should)\b"
                   r"|\W*$)|(?:what|which)\s+(?:day|date)\b|(?:the\s+)?date\s+(?!of\s+birth\b|night\b)\w+"
                   r"|how long ago\b)",
                   re.IGNORECASE)  # "date car broke?", "date of the root canal?": the terse forms
_ASKING = re.compile(r"^\W*(?:remind me|tell me|do you (?:remember|know)|can you (?:tell|remind) me)\s+", re.IGNORECASE)
_PAST_ASK = re.compile(r"^\W*(?:(?:remind me|tell me)\s+)?when\s+(?:did|was|were)\b", re.IGNORECASE)
_HABIT = re.compile(r"^\W*when\s+(?:do|does)\b", re.IGNORECASE)  # "when do I play?": a recurring day answers
_SPEAKER = re.compile(r"^[A-Z][\w'.-]*(?: [A-Z][\w'.-]*)?: ")  # an imported conversation's line, as told.py reads it
_SENTENCE_END = re.compile(r"[.!?\n]")
_PARTS_OF_DAY = {5: "in the morning", 12: "in the afternoon", 17: "in the evening", 18: "at night"}


@dataclass(frozen=True)
class Told:
    """A record a when-answer reads: the words as said, when they were said, and whether it is
    a fact noted about the user (said back in the second person) rather than their message."""

    text: str
    said: datetime
    fact: bool = False


@dataclass(frozen=True)
class _Dated:
    """A record that tells the event, with the event's day in it (None: it holds none)."""

    record: Told
    day: EventDay | None

    def key(self) -> tuple[object, ...]:
        if self.day is None:
            return ()
        span = self.day.span
        return (self.day.weekday,) if span is None else (span.start.date(), span.end.date(), span.kind)


def told_records(records: Sequence[MemoryRecord]) -> list[Told]:
    """The user's own words among `records`: the turns they (or someone of an imported
    conversation: a named speaker, or a line "Nate: ...") said and the facts about them; not the
    assistant's answers, nor digests."""
    told = []
    for record in records:
        origin = record.provenance
        mine = record.kind == "turn" and origin.role == "assistant" and not origin.speaker
        if record.kind == "digest" or (mine and not _SPEAKER.match(record.text)):
            continue
        said = moment_of(origin.date or "") or datetime.fromtimestamp(record.created)
        told.append(Told(record.text, said, fact=record.kind == "fact"))
    return told


def told_shown(recalled: Sequence[RecallHit], composed: ComposedPrompt) -> list[Told]:
    """`told_records` of the recalled records the prompt shows."""
    shown = set(composed.memories_used)
    return told_records([hit.record for hit in recalled if prompt_text(hit.record) in shown])


def when_parts(question: str) -> list[str]:
    """The parts of `question` that ask when."""
    return [part for part in parts(question) if _WHEN.match(part)]


def asks_when_told(question: str, memories: Sequence[str]) -> bool:
    """Whether `question` asks when, and the memories shown (as the prompt renders them) tell
    each part of it with a day (told.untold_parts): "when is the parents' evening?" after "we
    have the parents' evening on Thursday" asks about the user's life, with no "my" in it."""
    return bool(when_parts(question)) and bool(memories) and not untold_parts(question, [*map(from_memory, memories)])


def answer_when(question: str, told: Sequence[Told], candidates: Sequence[Candidate], today: datetime,
                correction: Sequence[Told] = ()) -> str | None:
    """The program's answer to a question with a when-part (see the module's definitions), or
    None when it asks no when, or no record tells an event it asks about; `correction`: a record
    that changed the event's day, read when no other tells it ("the first pottery class was on
    the Friday" for "when did my pottery course start?")."""
    whens = when_parts(question)
    if not whens:
        return None
    others = [part for part in parts(question) if part not in whens]
    subjects = subjects_of([Candidate(t.text, t.text, t.text) for t in told], question)
    answers: list[_PartAnswer] = []
    for part in whens:
        asked = _ASKING.sub("", part)  # "remind me when ...": what is asked about is after it
        event = asked if asked_words(asked, subjects) or not others else " ".join(others)
        telling = _telling(event, question, told, subjects) or list(correction)
        said = _answer_part(part, event, telling, today, subjects)
        if said is None:
            return None
        answers.append(said)
    before = [c for part in others for c in answering(part, candidates)[:1]]
    if not before:
        return " ".join(dict.fromkeys(f"{answer.text}. {answer.source}" for answer in answers))
    quoted = " ".join(" ".join(c.text.split()) for c in before).lower()
    sources = [a.source for a in answers if " ".join(a.record.text.split()).lower() not in quoted
               and not (a.phrase and a.phrase.lower() in quoted)]  # its day is said back already
    when = "; ".join(answer.text[:1].lower() + answer.text[1:] for answer in answers)
    return " ".join(dict.fromkeys([*(c.told for c in before), f"When: {when}.", *sources]))


class _PartAnswer(NamedTuple):
    """A when-part's answer: the day said (or why it is not sure), and its record said back."""

    text: str
    source: str
    record: Told
    phrase: str = ""  # the time phrase the day was read from


def _telling(event: str, question: str, told: Sequence[Told], subjects: frozenset[str]) -> list[Told]:
    """The records that tell the event best (see the module's definitions)."""
    need = margin(event, subjects) - 1e-9
    named = content_words(question) & subjects
    scored = [(held_share(event, t.text, subjects), len(named & content_words(t.text)), t) for t in told]
    passing = [(share, names, t) for share, names, t in scored if share >= need]
    if not passing:
        return []
    best = max((share, names) for share, names, _ in passing)
    return [t for share, names, t in passing if (share, names) == best]


def _answer_part(part: str, event: str, telling: Sequence[Told], today: datetime,
                 subjects: frozenset[str]) -> _PartAnswer | None:
    """One when-part's answer from the records that tell its event."""
    if not telling:
        return None
    found = [_Dated(record, _event_day(event, record, subjects)) for record in telling]
    dated = [item for item in found if item.day is not None and not _after(item.day, part, today)]
    if not dated:
        first = found[0].record
        return _PartAnswer("I'm not sure of the day: you didn't tell me", _source(first), first)
    kinds = [item for item in dated if (item.day is not None and item.day.weekday != "") == bool(_HABIT.match(part))]
    dated = kinds or dated  # "when do I ...": the recurring day; "when did I ...": the one day
    days = list({item.key(): item for item in dated}.values())
    if len(days) == 1:
        day = days[0].day
        return _PartAnswer(spoken_when(day, today, days[0].record.said), _source(days[0].record), days[0].record,
                           day.phrase.strip() if day else "")
    told = " ".join(f"{_source(item.record)} ({spoken_when(item.day, today, item.record.said)})" for item in days)
    return _PartAnswer("I'm not sure which day: you told me more than one", told, days[0].record)


def _after(day: EventDay, part: str, today: datetime) -> bool:
    """Whether a part that asks of the past ("when did my laptop die?") got a day still to come:
    a reading that cannot be right."""
    return bool(_PAST_ASK.match(part)) and day.span is not None and day.span.start.date() > today.date()


def _event_day(event: str, record: Told, subjects: frozenset[str]) -> EventDay | None:
    """The time phrase of `record` in a sentence with an event word, nearest to it."""
    days = [day for day in event_days(record.text, record.said) if day.span is not None or day.weekday]
    marks = [start for word, start, _ in compounds(record.text) if holds_asked(event, word, subjects)]
    if not marks:  # nothing asked but who: the record's one time phrase, if it has one
        return days[0] if len(days) == 1 else None
    linked = [(min(_distance(record.text, day.start, mark) for mark in marks), day) for day in days
              if any(_same_sentence(record.text, day.start, mark) for mark in marks)]
    return min(linked, key=lambda pair: pair[0])[1] if linked else None


def _distance(text: str, day: int, mark: int) -> tuple[bool, bool, int]:
    """How far a time phrase is from an event word: another sentence, then another clause, then
    characters ("Two days ago I finished the quilt, and we're giving it to her on Sunday")."""
    return not _same_sentence(text, day, mark), not same_clause(text, day, mark), abs(day - mark)


def _same_sentence(text: str, first: int, second: int) -> bool:
    low, high = sorted((first, second))
    return _SENTENCE_END.search(text, low, high) is None


def spoken_when(day: EventDay | None, today: datetime, said: datetime) -> str:
    """"On Thursday 12 November 2026 (4 days ago)", "Every Wednesday", "In January 2027", "In the
    week of Monday 2 November 2026 (the week before 11 November 2026)" (for a day `said`)."""
    if day is None or day.span is None:
        return f"Every {day.weekday}" if day is not None else ""
    span = day.span
    if day.one_day:
        part = _PARTS_OF_DAY.get(span.start.hour, "") if span.kind == "part_of_day" else ""
        near = _relative(span.start, today)
        return f"On {span.start:%A} {spoken_date(span.start.isoformat())}" + (f", {part}" if part else "") + (
            f" ({near})" if near else "")
    if span.kind == "month":
        return f"In {span.start:%B %Y}"
    if span.kind == "week":
        against = week_before(span, said)
        return f"In the week of Monday {spoken_date(span.start.isoformat())}" + (
            f" ({against})" if against else "") + "; you didn't tell me which day"
    last = span.end.replace(hour=0) if span.end.hour else span.end
    if (last - span.start).days == 2 and span.start.weekday() == 5:
        return f"On the weekend of {spoken_date(span.start.isoformat())}; you didn't tell me which day"
    if (last - span.start).days in (365, 366):  # "last year"; "ten years ago": that year, give or take
        middle = span.start + (last - span.start) / 2
        return f"In {span.start:%Y}" if (span.start.month, span.start.day) == (1, 1) else f"Around {middle:%Y}"
    return f"Between {spoken_date(span.start.isoformat())} and {spoken_date(last.isoformat())}"


def _relative(moment: datetime, today: datetime) -> str:
    """The day against today, where that reads better than the date alone: "yesterday", "3 days
    ago", "in 2 days"; "" more than two weeks away."""
    days = (moment.date() - today.date()).days
    named = {0: "today", -1: "yesterday", 1: "tomorrow", -7: "a week ago"}
    if days in named:
        return named[days]
    if -14 <= days < 0:
        return f"{-days} days ago"
    return f"in {days} days" if 0 < days <= 14 else ""


def _source(record: Told) -> str:
    """The record the answer comes from, verbatim ('On 9 November 2026 you said: "..."')."""
    text = " ".join(record.text.split())
    if len(text) > QUOTED_CHARS:
        text = text[:QUOTED_CHARS].rsplit(" ", 1)[0] + " ..."
    day = spoken_date(record.said.isoformat())
    if record.fact:
        fact = addressed(text).rstrip(".")
        return f"On {day} you told me: {fact[:1].lower() + fact[1:] if fact.startswith('You') else fact}."
    return f'On {day} you said: "{text}".'
