"""`read(message, now)`: the one reading of a message that every part of a turn takes.

The intents (each with the span of text it came from; a whole-message intent spans it all):
- `introduction`: the user gives their name (introductions.py), value the name;
- `correction`: the message corrects something said before (corrections.py);
- `past`: a question about the user's own past (past.py), value "certain", "names" (memory
  decides by the names it holds) or "own-name" (the user's own name asked);
- `about-assistant`: a question about the assistant itself (about.py), value the topic;
- `goodbye`: the message ends with a goodbye (courtesy.py), value "farewell" or "goodnight";
- `courtesy`: only a greeting or thanks (courtesy.py), value "greeting" or "thanks";
- `feeling`: a feeling shared (feelings.py), value "hard" or "good";
- `statement`: a statement in the first person, not asking (clauses.py), one per clause;
- `request`: a question or a request to the assistant (`asks`);
- `tool-request`: a question or request about a subject only a tool can answer (requests.py),
  value the subject (calculation, date, notes, database, memory), one per subject;
- `recap`: a question about what the conversation covered (recap.py), value the period.
Which of several intents a reply follows is the turn's choice (turn/replies.py).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from dataclasses import dataclass
from typing import Literal, get_args

from .about import AboutAssistant, Topic, asked_about_assistant
from .clauses import Clause, split_clauses
from .corrections import CORRECTION
from .courtesy import Courtesy, Farewell, Goodbye, courtesy, farewell, is_small_talk
from .dates import DateSpan, read_dates
from .feelings import Feeling, feeling
from .introductions import introduced_name
from .language import language_of
from .names import names_of
from .past import ASKS_OWN_NAME, PastQuestion, past_question
from .recap import recap_span
from .requests import Subject, asks_tool, embedded_question, tool_subjects
from .rounding import Rounding, read_rounding
from .values import Value, extract
from .words import compounds, lower_words, respelled

IntentKind = Literal["introduction", "correction", "past", "about-assistant", "goodbye", "courtesy", "feeling",
                     "statement", "request", "tool-request", "recap"]
Span = tuple[int, int]
# Every form the reading recognizes: an intent kind, or kind:value where the value tells forms
# apart; and the quantities and dates it reads (tests/data/reading_corpus.jsonl has each).
FORMS: tuple[str, ...] = (
    "introduction", "correction", "past:certain", "past:names", "past:own-name",
    *(f"about-assistant:{topic}" for topic in get_args(Topic)), *(f"goodbye:{kind}" for kind in get_args(Farewell)),
    *(f"courtesy:{kind}" for kind in get_args(Courtesy)), *(f"feeling:{kind}" for kind in get_args(Feeling)),
    "statement", "request", *(f"tool-request:{subject}" for subject in get_args(Subject)), "recap",
    "numbers", "dates", "rounding",
)
# A clause that opens with a negated auxiliary and has no question mark left its subject out:
# "can't sleep", "didn't get the job" tell, they do not ask.
_DROPPED_SUBJECT = re.compile(r"^(?:can't|cannot|couldn't|won't|don't|didn't|isn't|wasn't|haven't|hasn't)\b",
                              re.IGNORECASE)


@dataclass(frozen=True)
class Intent:
    """Something the message does, where it says it, and its value (a name, a kind)."""

    kind: IntentKind
    span: Span
    value: str = ""


@dataclass(frozen=True)
class Reading:
    """A message read once: its words, clauses, language, numbers, dates and names, the intents
    recognized, and the details the replies need (the name introduced, the goodbye, ...)."""

    text: str
    words: tuple[str, ...]
    clauses: tuple[Clause, ...]
    language: str | None
    numbers: tuple[Value, ...]
    dates: tuple[DateSpan, ...]
    names: tuple[str, ...]
    intents: tuple[Intent, ...]
    asks: bool
    introduced_name: str | None
    correction: bool
    about: AboutAssistant | None
    goodbye: Goodbye | None
    courtesy: Courtesy | None
    feeling: Feeling | None
    past: PastQuestion | None
    own_name: bool
    recap: DateSpan | None
    small_talk: bool
    tool_request: bool
    tool_subjects: tuple[Subject, ...]
    rounding: Rounding | None = None  # how the user wants the answer's number rounded (rounding.py)
    tool_text: str = ""  # the question the tools read: the one a message asks indirectly (requests.py)

    @property
    def english(self) -> bool:
        """English, or too short to tell."""
        return self.language in (None, "en")

    def intent(self, kind: IntentKind) -> Intent | None:
        """The first intent of `kind`, or None."""
        return next((intent for intent in self.intents if intent.kind == kind), None)

    def labels(self) -> list[str]:
        """The intents as forms (`FORMS`): the kind, with the value where it tells forms apart
        (not the name introduced nor the period of a recap), each once, sorted."""
        return sorted({intent.kind if intent.kind in ("introduction", "recap") or not intent.value
                       else f"{intent.kind}:{intent.value}" for intent in self.intents})

    def kinds(self) -> tuple[IntentKind, ...]:
        """The kinds of the intents recognized, each once, in the order of `IntentKind`."""
        return tuple(dict.fromkeys(intent.kind for intent in self.intents))


def read(message: str, now: dt.datetime) -> Reading:
    """The reading of `message`, with dates relative to `now`; question words in a chat
    spelling read as the words they spell (words.py `respelled`: "wat mark did i get")."""
    message = respelled(message)
    clauses = tuple(split_clauses(message))
    language = language_of(message)
    asked = embedded_question(message)  # "not sure how many days until ...": a question asked indirectly asks
    asks = "?" in message or (asked != message and asks_tool(asked)) or any(
        clause.act == "request" or (clause.act == "question" and not _DROPPED_SUBJECT.match(clause.text))
        for clause in clauses)
    correction, own_name = CORRECTION.search(message), ASKS_OWN_NAME.search(message)
    tokens, dates = list(compounds(message)), tuple(read_dates(message, now))
    found = tuple(lower_words(tokens))
    tool_request = asks_tool(message) or bool(tool_subjects(asked))  # a question asked indirectly, of a tool's subject
    reading = Reading(
        text=message, words=found, clauses=clauses, language=language, numbers=tuple(extract(message, ("number",))),
        dates=dates, names=tuple(names_of(message, tokens)), intents=(), asks=asks,
        introduced_name=introduced_name(message), correction=correction is not None,
        about=asked_about_assistant(message), goodbye=farewell(message), courtesy=courtesy(found),
        small_talk=is_small_talk(found), feeling=feeling(message), past=past_question(message, clauses, language),
        own_name=own_name is not None, recap=recap_span(message, dates, now), tool_request=tool_request,
        tool_subjects=tool_subjects(asked), rounding=read_rounding(message), tool_text=asked)
    return dataclasses.replace(reading, intents=_intents(reading, correction, own_name))


def _intents(reading: Reading, correction: re.Match[str] | None, own_name: re.Match[str] | None) -> tuple[Intent, ...]:
    whole, text = (0, len(reading.text)), reading.text
    found: list[Intent] = []
    if reading.introduced_name:
        at = text.lower().find(reading.introduced_name.lower())
        found.append(Intent("introduction", (at, at + len(reading.introduced_name)) if at >= 0 else whole,
                            reading.introduced_name))
    if correction is not None:
        found.append(Intent("correction", correction.span()))
    past = reading.past
    if own_name is not None:
        found.append(Intent("past", own_name.span(), "own-name"))
    elif past is not None and (past.certain or past.named):
        found.append(Intent("past", whole, "certain" if past.certain else "names"))
    if reading.about is not None:
        found.append(Intent("about-assistant", reading.about.span, reading.about.topic))
    if reading.goodbye is not None:
        found.append(Intent("goodbye", reading.goodbye.span, reading.goodbye.kind))
    if reading.courtesy is not None:
        found.append(Intent("courtesy", whole, reading.courtesy))
    if reading.feeling is not None:
        found.append(Intent("feeling", whole, reading.feeling))
    found += [Intent("statement", _span_of(text, clause.text)) for clause in reading.clauses
              if not reading.asks and clause.first_person_statement]
    if reading.asks:
        found.append(Intent("request", whole))
    if reading.tool_request:
        found += [Intent("tool-request", whole, subject) for subject in reading.tool_subjects]
    if reading.recap is not None:
        found.append(Intent("recap", whole, reading.recap.text))
    return tuple(found)


def _span_of(message: str, text: str) -> Span:
    """Where `text` (a clause, perhaps rewritten) stands in `message`; the whole message when
    it does not stand there as written."""
    at = message.find(text)
    return (at, at + len(text)) if at >= 0 else (0, len(message))
