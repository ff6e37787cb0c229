"""Quotes in an answer only verbatim (issue 43, item 2).

A 135M model shown recalled messages writes quotes nobody said: "(1 November 2026) You said:
what languages do I speak? Your answer is: ...", "You said: Pip hurt his paw yesterday (9
November 2026) Bolt is a greyhound named Pip." Such an answer dresses an invention as memory.

Definitions:
- a quote form: "you said", "you told me", "you mentioned", "you wrote", "I told you" followed by
  a colon or a quotation mark; at the start of a line or sentence, a date in parentheses ("(2
  May 2024) ...") or a date with who said it ("- 2 May 2024, you: ...", "On 2 May 2024 you
  said: ..."), not a date alone ("17 November 2026 is the day"); a line opened by the name of
  a speaker of a record or of someone such a record names ("Jon: ...", "Gina: ...", lines of an
  imported conversation); or a quoted span of
  QUOTED_WORDS words or more that is not a date ("... "I moved to Madrid" ...");
- the quote's text: the quoted span when a quotation mark opens it (the quote ending after its
  closing mark and the punctuation right after it), else the rest of its sentence (to a full
  stop, question or exclamation mark followed by a space, or the line's end);
- a quote is verbatim when its text, in lower case with whitespace collapsed and the quotation
  marks and final punctuation dropped, is a piece of a record's text (a memory shown or an
  earlier message of the dialogue; not the user's question, which tells nothing), the quote and the record
  each with or without the dates the prompt puts after relative days ("yesterday (7 May
  2023)"); a dated quote must be
  of a record of that day;
- an answer's quotes that are not verbatim are removed with their form (`without_invented`); a
  verbatim one in the prompt's own form ("19 November 2026, you: ...") is said as the program
  says a record back ('On 19 November 2026 you said: "..."').
A record whose own text holds a quote form (an earlier answer that quoted memory) is never
quoted again (`quotes_inside`).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from typing import NamedTuple

from ..reading.names import proper_names
from .evidence import Candidate

QUOTED_WORDS = 3  # a quoted span this long is a quote, not a title or a name
_DAY = r"\d{1,2} [A-Z][a-z]+ \d{4}"
_SAYING = r"(?:you said|you told me|you mentioned|you wrote|i told you)"
_OPENING = r"(?:^|(?<=[.!?:]\s))"
_SAID = r"(?::\s*|(?=[\"“]))"  # a colon or a quotation mark after a saying
_FORM = re.compile(
    rf"{_OPENING}\s*\((?P<day>{_DAY})\)\s*(?:(?:{_SAYING}|you|me|i)\s*)?:?\s*"  # "(2 May 2024) ..."
    # "- 2 May 2024, you: ...", "On 2 May 2024 you said: ..."
    rf"|{_OPENING}\s*(?:-\s*)?(?:on\s+)?(?P<listed_day>{_DAY}),?\s*(?:{_SAYING}|(?P<who>you|me))\s*{_SAID}"
    rf"|\b{_SAYING}\s*(?:that\s*)?{_SAID}",  # "you said: ...", "I told you "..."
    re.IGNORECASE | re.MULTILINE)
_QUOTED = re.compile(r"[\"“](?P<text>[^\"“”]+)[\"”]")
_CLOSING = re.compile(r"[.!?;,](?=\s|$)")
_SENTENCE_END = re.compile(r"[.!?](?=\s|$)|\n")
_TOLD_DATE = re.compile(r"\s*\([^()]*\b\d{4}\)")  # "yesterday (7 May 2023)", "ago (around 2024)"
_SPEAKER = re.compile(r"^(?P<name>[A-Z][\w'.-]*(?: [A-Z][\w'.-]*)?): ")  # "Jon: ..." (told.py)
_EDGES = "\"“”'‘’ .,;:!?-"


class Quote(NamedTuple):
    """A quote in an answer: where it starts and ends (its form included), its text, its day."""

    start: int
    end: int
    text: str
    day: dt.date | None
    listed: str = ""  # "you" or "me" when written in the prompt's own form ("- 2 May 2024, you: ...")

    def rendered(self) -> str:
        """A quote written in the prompt's form, as the program says a record back."""
        who = "you said" if self.listed == "you" else "I told you"
        day = f"{self.day.day} {self.day:%B %Y}" if self.day else ""
        return f'On {day} {who}: "{self.text.strip().rstrip(".")}".'


def _plain(text: str) -> str:
    return " ".join(text.split()).lower().strip(_EDGES)


def _quoted_from(answer: str, at: int) -> tuple[str, int]:
    """The quote's text from `at`, and where it ends (after its closing mark or its sentence)."""
    quoted = _QUOTED.match(answer, at)
    if quoted:
        closing = _CLOSING.match(answer, quoted.end())
        return quoted["text"], closing.end() if closing else quoted.end()
    ending = _SENTENCE_END.search(answer, at)
    end = ending.end() if ending else len(answer)
    return answer[at:end], end


def speakers(records: Sequence[Candidate]) -> frozenset[str]:
    """The names that open the records' lines as their speakers ("Jon: ..." of an imported
    conversation), and the people those lines name ("Hey Gina!")."""
    lines = [record.text for record in records if _SPEAKER.match(record.text)]
    named = {name for line in lines for name in proper_names(line)}
    return frozenset({line.split(":", 1)[0] for line in lines} | named)


def _speaker_lines(answer: str, names: frozenset[str]) -> list[Quote]:
    """The answer's lines opened by a speaker's name ("Jon: Hey Gina!"), each to its line's end,
    the name included."""
    if not names:
        return []
    opening = re.compile(rf"{_OPENING}\s*(?:{'|'.join(map(re.escape, sorted(names)))}):[^\n]*", re.MULTILINE)
    return [Quote(line.start(), line.end(), line[0].strip(), None) for line in opening.finditer(answer)]


def quotes(answer: str, names: frozenset[str] = frozenset()) -> list[Quote]:
    """The quotes in `answer`, in order, each once (see the module's definitions); `names`: the
    speakers whose lines are quotes too."""
    found = _speaker_lines(answer, names)
    at = 0
    while (form := _FORM.search(answer, at)) is not None:
        text, end = _quoted_from(answer, form.end())
        if form.end() == form.start() or not text.strip() or any(q.start <= form.start() < q.end for q in found):
            at = form.end() + 1
            continue
        day = form["day"] or form["listed_day"]
        found.append(Quote(form.start(), end, text, _day(day), (form["who"] or "").lower()))
        at = end
    for quoted in _QUOTED.finditer(answer):
        inside = any(q.start <= quoted.start() < q.end for q in found)
        dated = re.fullmatch(_DAY, quoted["text"].strip())
        if not inside and not dated and len(quoted["text"].split()) >= QUOTED_WORDS:
            closing = _CLOSING.match(answer, quoted.end())
            found.append(Quote(quoted.start(), closing.end() if closing else quoted.end(), quoted["text"], None))
    return sorted(found)


def _day(spoken: str | None) -> dt.date | None:
    try:
        return dt.datetime.strptime(spoken, "%d %B %Y").date() if spoken else None
    except ValueError:
        return None


def verbatim(quote: Quote, records: Sequence[Candidate]) -> bool:
    """Whether the quote is a piece of a record's text (see the module's definitions)."""
    said = {_plain(quote.text), _plain(_TOLD_DATE.sub("", quote.text))} - {""}
    for record in records:
        asks = record.text.rstrip().endswith("?") and not _SPEAKER.match(record.text)  # the user's question
        if asks or (quote.day and record.day and record.day != quote.day):
            continue
        if any(piece in _plain(form) for piece in said for form in (record.text, _TOLD_DATE.sub("", record.text))):
            return True
    return False


def without_invented(answer: str, records: Sequence[Candidate]) -> str:
    """`answer` with each quote that is not verbatim removed, form and all (whitespace tidied)."""
    kept, at = [], 0
    for quote in quotes(answer, speakers(records)):
        if quote.start < at:
            continue
        said = verbatim(quote, records)
        if said and not (quote.listed and quote.day):
            continue
        kept.append(answer[at:quote.start] + (f"{quote.rendered()} " if said else ""))
        at = quote.end
    kept.append(answer[at:])
    return re.sub(r"[ \t]+([.,;:!?])", r"\1", re.sub(r"[ \t]+", " ", "".join(kept))).strip()


def quotes_inside(text: str) -> bool:
    """Whether a record's text holds a quote form (an earlier answer that quoted memory)."""
    return any(form.end() > form.start() for form in _FORM.finditer(text))
