"""Which reply a message gets: `plan_reply` walks `PRECEDENCE` over the message's reading and
the memories shown, the first step that makes a plan winning (turn/replies.py says who says
what for each kind, and makes the reply)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from ..reading import Reading
from ..reading.problems import amount_without_numbers, calculation_request, calendar_day, value_asked
from ..reading.values import extract
from ..reading.words import MONTHS, WEEKDAY_ABBREVIATIONS, WEEKDAYS, alternation
from .about_me import about_me_reply
from .acknowledge import correction_reply, introduction_reply
from .evidence import from_memory
from .latest import changed
from .memory_answers import asks_about_past
from .phrases import farewell_reply, phrase
from .problem_said import problem_said
from .statements import statement_reply
from .told import asks_of_records
from .when_answer import asks_when_told

ReplyKind = Literal["introduction", "correction", "about-me", "farewell", "courtesy", "problem", "past", "calculation",
                    "date", "estimate", "statement", "open"]
# Said before the model's guess at an amount nothing here can work out ("how tall is the Eiffel Tower?").
GUESS_OPENING = "I'm not sure; I can't check this, so take it as a guess:"


@dataclass(frozen=True)
class ReplyPlan:
    """Who says what: `text` is the program's reply, or its opening when the model answers
    after it (`model_after`)."""

    kind: ReplyKind
    text: str = ""
    model_after: bool = False
    outcome: str = ""  # TurnResult.outcome, when the program's reply answers a question


PlanStep = Callable[[Reading, Sequence[str]], "ReplyPlan | None"]


def _correction(reading: Reading, memories: Sequence[str]) -> ReplyPlan | None:
    said = correction_reply(reading) if reading.english and not reading.asks else None
    return ReplyPlan("correction", said) if said else None


def _introduction(reading: Reading, memories: Sequence[str]) -> ReplyPlan | None:
    introduction, about = introduction_reply(reading), about_me_reply(reading.about)
    if not introduction:  # "Hi, I'm Sam. What's your name?": both the program's
        return None
    return ReplyPlan("introduction", f"{introduction} {about}" if about else introduction,
                     model_after=reading.asks and not about)


def _about_me(reading: Reading, memories: Sequence[str]) -> ReplyPlan | None:
    about = about_me_reply(reading.about)
    return ReplyPlan("about-me", about) if about else None


def _farewell(reading: Reading, memories: Sequence[str]) -> ReplyPlan | None:
    goodbye = reading.goodbye  # a message that also asks gets its answer, never only the goodbye
    return ReplyPlan("farewell", farewell_reply(goodbye, reading.language)) if goodbye and not reading.asks else None


def _courtesy(reading: Reading, memories: Sequence[str]) -> ReplyPlan | None:
    return ReplyPlan("courtesy", phrase(reading.courtesy, reading.language)) if reading.courtesy else None


def _problem(reading: Reading, memories: Sequence[str]) -> ReplyPlan | None:
    said = problem_said(reading.text) if reading.english else None
    return ReplyPlan("problem", said[0], outcome=said[1]) if said else None


def past_plan(reading: Reading, memories: Sequence[str]) -> ReplyPlan | None:
    # "whats my name lol" asks too, in any form; "when is the parents' evening?" when a memory tells it;
    # so does a question a changed record answers ("where is mum's party?" after "change of plan, the
    # party is at the community hall now")
    if reading.own_name or asks_about_past(reading.past, memories):
        return ReplyPlan("past")
    if reading.past is not None and asks_when_told(reading.text, memories):
        return ReplyPlan("past")
    if reading.past is not None and asks_of_records(reading.text, [from_memory(m) for m in memories]):
        return ReplyPlan("past")  # "what's the vet clinic called?" after "a receptionist at a vet clinic"
    changes = reading.asks and changed(reading.text, [from_memory(m) for m in memories]) is not None
    return ReplyPlan("past") if changes else None


def _calculation(reading: Reading, memories: Sequence[str]) -> ReplyPlan | None:
    # in any form a person types it: "price was 80 now 60, % decrease", "1/3 + 1/4 as decimal";
    # asked of its own numbers, never of the user's past ("my brother is 5 years older than my
    # cousin. how old is my brother?")
    return ReplyPlan("calculation", outcome="unsure") if calculation_request(reading.text) else None


# A question for a day ("whats the date of that", "what weekday was that", "day of the week") ...
_DAY_ASKED = re.compile(r"\b(?:what|which)(?:'s|s)?\s+(?:the\s+)?(?:date|day|weekday)\b|\bday\s+of\s+the\s+week\b",
                        re.IGNORECASE)
# ... of a day the message names itself: a date, a weekday, a month, "a week from", "tomorrow"
_DAY_NAMED = re.compile(rf"\b(?:{alternation([*WEEKDAYS, *WEEKDAY_ABBREVIATIONS, *MONTHS, *(m[:3] for m in MONTHS)])}"
                        r"|tomorrow|yesterday|today)\b"
                        r"|\b(?:days?|weeks?|months?)\s+(?:from|after|before)\b|\d", re.IGNORECASE)


def _date(reading: Reading, memories: Sequence[str]) -> ReplyPlan | None:
    # a day asked of a day the message names, that no date rule read ("my sis says the party is a
    # week from friday, whats the date of that"): never the model's guess at a date
    if not reading.english or not _DAY_ASKED.search(reading.text) or not _DAY_NAMED.search(reading.text):
        return None
    read = "; ".join(span.text for span in reading.dates)
    said = f" (I read: {read})" if read else ""
    return ReplyPlan("date", f"I'm not sure: I can't work out that day exactly from what you wrote{said}. "
                             "Could you give the date it counts from, with its year (for example 20 March 2026)?",
                     outcome="unsure")


def _amount(reading: Reading, memories: Sequence[str]) -> ReplyPlan | None:
    bare = amount_without_numbers(reading.text) if reading.english else None
    if bare == "own":  # "how much will I pay for the apples?": from memory, or asked for
        return ReplyPlan("past") if memories else ReplyPlan("calculation", outcome="unsure")
    if bare == "general":  # "how tall is the Eiffel Tower?": a small model's number is a guess, said as one
        return ReplyPlan("estimate", GUESS_OPENING, model_after=True, outcome="unsure")
    return None


def _statement(reading: Reading, memories: Sequence[str]) -> ReplyPlan | None:
    if reading.asks or not (not reading.english or reading.feeling or reading.intent("statement")):
        return None
    return ReplyPlan("statement", statement_reply(reading))


def _value(reading: Reading, memories: Sequence[str]) -> ReplyPlan | None:
    # a value asked of the message's own quantities that no rule or tool read ("6 ft 2 in to cm",
    # "feb 2026 how many days"): never the model's free text, whose value would be a guess
    return ReplyPlan("calculation", outcome="unsure") if asks_a_value(reading) else None


def asks_a_value(reading: Reading) -> bool:
    """Whether an English message asks for a value of its own numbers, clock times or dated
    days (reading/problems `value_asked`), not for words ("6 ft 2 in to cm", "is 2028 a leep year";
    not "who won the world cup in 1998", "lol 3 more days till the weekend")."""
    if not reading.english:
        return False
    clock_times = extract(reading.text, ("time",))
    own = len(reading.numbers) + len(clock_times) + sum(map(calendar_day, (span.text for span in reading.dates)))
    return value_asked(reading.text, own)


# Which reply a message gets when it does several things: the first step of this table that
# makes a plan (recap questions are the agent's, before recall; anything else is "open").
PRECEDENCE: tuple[tuple[str, PlanStep], ...] = (
    ("correction", _correction),  # English and not asking: "No, my name is Alexa." before the name
    ("introduction", _introduction),  # with the answer about the assistant when both
    ("about-me", _about_me),
    ("farewell", _farewell),  # a goodbye at the end wins over the thanks before it, not over a question
    ("courtesy", _courtesy),
    ("problem", _problem),  # states its own quantities and asks about them: never the past
    ("calculation", _calculation),  # asks for an amount of a number it states: no free model text, no memory
    ("past", past_plan),
    ("date", _date),  # asks for a day of a day it names, that no date rule read: no free model text
    ("amount", _amount),  # asks for an amount with no number: from memory, asked for, or a guess said as one
    ("statement", _statement),  # not asking: a feeling, a first-person statement, another language
    ("value", _value),  # a value asked of its own quantities or days, in any form: no free model text
)


def plan_reply(reading: Reading, memories: Sequence[str]) -> ReplyPlan:
    """The kind of reply the message read as `reading` gets (`PRECEDENCE`)."""
    for _, step in PRECEDENCE:
        plan = step(reading, memories)
        if plan is not None:
            return plan
    return ReplyPlan("open")
