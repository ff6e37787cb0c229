""""What did we talk about today / last week?": answered by the program from that period's
turns and digests, not by the model (which, shown a few memories, invents a topic).

A recap question asks what the conversation covered ("what did we talk about", "what have we
discussed", "remind me what we talked about", "summarize our chats") with a time ("today",
"last week", "on Monday"; none means today). Its answer lists, for the period, each session's
digest bullets, and for a session without a digest (the current one, or one left before it had
three exchanges) what the user said in it: statements said back to them ("your favourite food
is grilled sardines"), questions and requests quoted. Nothing said then: it says so.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..dates.clock import spoken_date
from ..memory.index.person import addressed, second_person
from ..memory.index.time_boost import moment_of
from ..reading.clauses import split_clauses
from ..reading.dates import DateSpan
from ..reading.recap import is_recap_question
from ..types import MemoryRecord

MAX_ITEMS = 8
ITEM_CHARS = 120
_TODAY_WORDS = re.compile(r"\b(?:so far|until now|earlier|just now|this session)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Said:
    """One thing said in the period: when, in which session, by which route (user or digest)."""

    moment: dt.datetime
    session: str
    text: str
    digest: bool = False


def period_items(records: Iterable[MemoryRecord], span: DateSpan, live: Sequence[Said] = ()) -> list[Said]:
    """What was said in `span`: digests overlapping it, and the user's turns of the sessions
    that have no digest there; `live` adds what the current session holds that memory does not
    (incognito turns). Recap questions themselves are left out."""
    digests: list[Said] = []
    turns: list[Said] = []
    for record in records:
        origin = record.provenance
        moment = moment_of(origin.date or "")
        if moment is None:
            continue
        if record.kind == "digest":
            until = moment_of((origin.extra or {}).get("until", "")) or moment
            if moment < span.end and until >= span.start:
                digests.append(Said(moment, origin.session or "", record.text, digest=True))
        elif record.kind == "turn" and origin.role == "user" and span.contains(moment):
            turns.append(Said(moment, origin.session or "", record.text))
    digested = {said.session for said in digests}
    told = [said for said in [*turns, *live] if said.session not in digested and not is_recap_question(said.text)]
    unique = {(said.session, said.text): said for said in told}  # a turn in memory and in the live session once
    return sorted([*digests, *unique.values()], key=lambda said: said.moment)


def recap_text(items: Sequence[Said], span: DateSpan) -> str:
    """The answer: a line per thing said (digest bullets one by one), the day named when the
    period spans several days; or that nothing was said."""
    when = span.text.strip() or "then"
    if not items:
        return f"I have no record of us talking {when}."
    several_days = len({said.moment.date() for said in items}) > 1
    lines: list[str] = []
    for said in items:
        day = f"({spoken_date(said.moment.date().isoformat())}) " if several_days else ""
        for line in _lines(said):
            entry = f"- {day}{line}"
            if entry not in lines:
                lines.append(entry)
    shown = lines[:MAX_ITEMS]
    more = f"\n... and {len(lines) - len(shown)} more." if len(lines) > len(shown) else ""
    return f"{_opening(when)}\n" + "\n".join(shown) + more


def _opening(when: str) -> str:
    return f"{when[:1].upper()}{when[1:]} we talked about:" if not when.lower().startswith(("on ", "in ")) \
        else f"We talked about this {when}:"


def _lines(said: Said) -> list[str]:
    if said.digest:
        return [_short(addressed(line.lstrip("-• ").strip())) for line in said.text.splitlines() if line.strip("-• ")]
    return [_short(line) for line in _told(said.text)]


def _told(message: str) -> list[str]:
    """A user's message as said back to them: statements in the second person, questions and
    requests quoted."""
    out = []
    for clause in split_clauses(message):
        if clause.act == "statement" and clause.first_person:
            out.append(second_person(clause.text))
        elif clause.act in ("question", "request"):
            out.append(f'you asked: "{clause.text}"')
        elif len(clause.text.split()) >= 3:
            out.append(f'you said: "{clause.text}"')
    return out[:2]


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= ITEM_CHARS else text[:ITEM_CHARS].rsplit(" ", 1)[0] + " ..."


def live_items(messages: Iterable[str], session: str, now: dt.datetime) -> list[Said]:
    """The current session's user messages that memory does not hold (incognito, or memory
    off), dated now: they were said in this session."""
    return [Said(now, session, text) for text in messages]
