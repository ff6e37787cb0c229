"""What the program says to a plain statement, and why the model's reply to one may not be
shown (turn/replies.py makes the reply; these are its rules for statements)."""

from __future__ import annotations

from collections.abc import Sequence

from ..grounding.support import unsupported
from ..reading import Reading
from ..reading.language import same_language
from .acknowledge import said_back
from .feelings import REPLIES as FEELING_REPLIES
from .feelings import misses_feeling
from .phrases import phrase
from .reply_checks import apologizes_or_refuses, claims_name, speaks_of_the_user, takes_statement, too_long

SAID_BACK_WORDS = 25  # a statement said back longer than this gets the plain thanks instead


def statement_reply(reading: Reading) -> str:
    """What the program says to a plain statement: to a feeling shared (in English)
    "That sounds hard. ..." or "That's wonderful to hear!"; else the statement said back, when
    short (in English), else thanks for telling, in the message's language."""
    shared = reading.feeling if reading.english else None
    if shared:
        return FEELING_REPLIES[shared]
    said = said_back(reading.clauses) if any(c.first_person_statement for c in reading.clauses) else ""
    if said and len(said.split()) <= SAID_BACK_WORDS and reading.english:
        return f"Got it: {said}."
    return phrase("told", reading.language)


def statement_problem(reply: str, reading: Reading, sources: Sequence[str], user_names: Sequence[str]) -> str | None:
    """Why the model's reply to a plain statement may not be shown, or None."""
    missing = unsupported(reply, sources)
    problems = (
        (not reply.strip(), "empty"),
        (not same_language(reply, reading.language), "another language"),
        (apologizes_or_refuses(reply, reading.text), "an apology or refusal"),
        (speaks_of_the_user(reply), 'speaks of "the user"'),
        (bool(claims_name(reply, user_names)), "takes the user's name"),
        (takes_statement(reply, reading.clauses) is not None, "takes the user's statement as its own"),
        (bool(missing), f"unsupported {missing.describe()}"),
        (too_long(reply, reading.text), "too long"),
        (misses_feeling(reply, reading.feeling), "cheers at something hard, or condoles at good news"),
    )
    return next((reason for failed, reason in problems if failed), None)
