"""What a turn says for a word problem, and whether a message is one: the one call a tool turn
makes (`reply`), with the outcome it ends in (`answer` or `unsure`).

A message is a word problem when it states at least two quantities and asks for an amount
("we scored 18 and 27, how many in all?"): it is answered from those quantities, never as a
question about the user's past. A named day ("on 7 July, 2023") holds no quantity of the
problem, and a question about what was said or about someone ("What did I say about 2 cats
and 3 dogs?", "What movie did Nate watch on 1 May, 2022?") asks for no amount."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Literal

from ..values import words_to_digits
from .asking import asks_about_its_quantities, without_named_days, written_calculation
from .missing import missing
from .motion import read_motion
from .packing import read_packing
from .quantities import read
from .solve import Solved, Unsure, number_text, solve
from .times import read_times

Outcome = Literal["answer", "unsure"]
_CLOCK = re.compile(r"\b\d{1,2}:\d{2}(?:\s*[ap]\.?m\b\.?)?", re.IGNORECASE)


@dataclass(frozen=True)
class ProblemReply:
    outcome: Outcome
    text: str  # what the turn says: the answer with its reading, or the reading and a question
    result: Solved | Unsure


def cannot_work_out(needed: str | None = None) -> str:
    """What a turn says for a calculation it cannot work out from the message, with what it
    would need when that is known."""
    said = "I'm not sure: I can't work that out from what you gave me"
    return f"{said}; I'd need {needed}." if needed else f"{said}."


def not_worked_out(text: str) -> str:
    """What a turn says for a calculation nothing reads exactly: "I'm not sure", with what it
    would need when that is read, else the numbers it did read ("I read 80 and 60")."""
    if (needed := missing(text)) is not None:
        return cannot_work_out(needed)
    found = [quantity.text for quantity in read(without_named_days(text)).quantities]
    found += _CLOCK.findall(text)
    if not found:
        return cannot_work_out()
    listed = f"the number {found[0]}" if len(found) == 1 else f"the numbers {', '.join(found[:-1])} and {found[-1]}"
    said = f"I'm not sure: I can't work that out exactly from what you wrote. I read {listed}"
    if written_calculation(text):  # "What is 17 * 23?" with no calculator: it is written already
        return f"{said}."
    return f"{said}; could you write the calculation you want (for example with + - × ÷)?"


def reads_times(text: str) -> bool:
    """Whether `text` is a question about durations or clock times read exactly (times.py)."""
    return read_times(text) is not None


def read_exactly(text: str) -> bool:
    """Whether `text` is a distance, speed and time question (motion.py) or a packing question
    (packing.py) read exactly: a word problem, whatever days or hours it names."""
    digits = words_to_digits(without_named_days(text))
    return read_motion(digits) is not None or read_packing(digits) is not None


def missing_quantity(text: str) -> str | None:
    """What `text`, a calculation, lacks ("her brother's age", "the distance"), or None (missing.py)."""
    return missing(text)


def lacks_a_quantity(text: str) -> bool:
    """Whether `text` is a calculation that lacks a quantity (missing.py)."""
    return missing(text) is not None


@functools.lru_cache(maxsize=64)  # the router and the reply plan both ask of one message
def reply(text: str) -> ProblemReply | None:
    """The reply to a word problem, or None when `text` is none (fewer than two quantities,
    or nothing asked): durations and clock times, distance, speed and time (motion.py) and
    packing into containers (packing.py) read exactly, a quantity the calculation lacks asked
    for, else the solver's answer or its reading said back."""
    if (timed := read_times(text)) is not None:
        reading = f"I read this as {timed.reading}."
        return ProblemReply("answer", f"{timed.answer}. {reading}", Solved(timed.reading, timed.seconds, reading, 1.0))
    if (moved := read_motion(words_to_digits(without_named_days(text)))) is not None:
        reading = f"I read this as {moved.reading}."
        return ProblemReply("answer", f"{moved.answer}. {reading}", Solved(moved.reading, moved.value, reading, 1.0))
    if (packed := read_packing(words_to_digits(without_named_days(text)))) is not None:
        reading = f"I read this as {packed.reading}."
        return ProblemReply("answer", f"{number_text(packed.answer)}. {reading}",
                            Solved(packed.reading, packed.answer, reading, 1.0))
    if (needed := missing(text)) is not None:
        return ProblemReply("unsure", cannot_work_out(needed), Unsure("", None, "", 0.0, f"needs {needed}"))
    if not asks_about_its_quantities(text):
        return None
    result = solve(without_named_days(text))
    if isinstance(result, Solved):
        return ProblemReply("answer", f"{number_text(result.value)}. {result.reading}", result)
    if result.reading:
        return ProblemReply("unsure", f"I'm not sure. {result.reading}", result)
    return ProblemReply("unsure", "I'm not sure how to work this out from what you wrote.", result)
