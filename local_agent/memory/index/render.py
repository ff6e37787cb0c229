"""A record's three renderings: the line the prompt shows, the text the dense index embeds, and
the text BM25 indexes. They are rarely the record's bare text.

A chat turn is embedded with who said it and when ("[8 May 2023] Caroline: I went to a support
group yesterday"), so that questions naming a person or a time find it. Lexically a turn is also
indexed with the turns it answers (see `state.py`): a reply such as "Yes, the adoption agencies!"
only makes sense next to the question it answers. A fact with a key is indexed lexically with
the key's words too. These are general properties of conversational memory, not of one
benchmark (the measurements behind them are in the README).

Changing what `dense_text` returns changes the vectors: bump RENDER_VERSION so that stored
vectors made from the old text are detected and re-made.
"""

from __future__ import annotations

import datetime as dt

from ...dates.clock import spoken_date
from ...dates.when_told import with_told_dates
from ...types import MemoryRecord
from .person import addressed
from .time_boost import moment_of

RENDER_VERSION = 1
TURN_MEMORY_CHARS = 200  # a recalled past message is quoted up to this length in the prompt


def prompt_text(record: MemoryRecord) -> str:
    """How a recalled record reads in the prompt: a fact said to the user ("You live in Lisbon.
    (noted 2 May 2024)"), a turn as a plain dated list line ("- 2 May 2024, you: I moved.",
    "- 2 May 2024, me: Read Dune.") that offers the model no quote form to copy ("(2 May 2024) I
    told you: ..." was copied into quotes nobody said; docs/answers.md); a relative time in a
    turn or a fact carries the date it meant when said (`when_told`). turn/evidence.py reads it
    back (tests/test_evidence.py holds the two together)."""
    said = _said(record)
    day = spoken_date(said.isoformat())
    text = " ".join(record.text.split())
    if record.kind == "fact":  # "yesterday (7 May 2023)": the model cannot count back from the date
        return f"{addressed(with_told_dates(text, said))} (noted {day})"
    if record.kind == "digest":
        until = record.provenance.until or ""
        if until[:10] > (record.provenance.date or "")[:10]:
            day = f"{day} to {spoken_date(until)}"
        return f"Conversation of {day}, in short: {addressed(text)}"
    if len(text) > TURN_MEMORY_CHARS:
        text = text[:TURN_MEMORY_CHARS].rsplit(" ", 1)[0] + " ..."
    return f"- {day}, {turn_speaker(record)}: {with_told_dates(text, said)}"


def turn_speaker(record: MemoryRecord) -> str:
    """Who a recalled turn is from, as its prompt line names them: "you" (the user, or a line of
    an imported conversation, which carries its speaker in its text), "me" (the assistant)."""
    return "me" if (record.provenance.role or "") == "assistant" and not record.provenance.speaker else "you"


def _said(record: MemoryRecord) -> dt.datetime:
    """When the record was said or noted: its provenance date, else when it was stored."""
    return moment_of(record.provenance.date or "") or dt.datetime.fromtimestamp(record.created)


def dense_text(record: MemoryRecord) -> str:
    """What is embedded for the record."""
    if record.kind != "turn":
        return record.text
    parts = []
    date = (record.provenance.date or "").strip()
    if date:
        parts.append(f"[{date}]")
    speaker = speaker_of(record)
    parts.append(f"{speaker}: {record.text}" if speaker else record.text)
    return " ".join(parts)


def lexical_text(record: MemoryRecord) -> str:
    """What is indexed for BM25, before the context of neighbouring turns is added."""
    if record.key is not None:
        return f"{dense_text(record)} ({record.key[0]} {record.key[1]})"
    return dense_text(record)


def speaker_of(record: MemoryRecord) -> str:
    """The name a turn is attributed to: its speaker, else its role ("User")."""
    origin = record.provenance
    if origin.speaker:
        return origin.speaker.strip()
    return (origin.role or "").strip().title()


def context_session(record: MemoryRecord) -> str | None:
    """The conversation a turn belongs to, whose earlier turns give it context."""
    if record.kind != "turn":
        return None
    return record.provenance.session


def embedding_id(model_id: str) -> str:
    """What stored vectors are tagged with: the model and the version of `dense_text`."""
    return f"{model_id}#text-v{RENDER_VERSION}"
