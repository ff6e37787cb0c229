"""Answers built by the program from what the tools returned, with no model: the plain
answer of a result ("The result is 12.6.", "2026-04-10 is a Friday."), and the answer of a
turn whose every call failed or came back empty, which says what was tried and what went
wrong and asserts nothing else."""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..grounding import check
from .loop import ASK_USER, ToolCall

# What each tool is, in words, for an answer that says what was tried.
WHAT = {"calculator": "The calculator", "date": "The date tool", "sql_query": "The database query",
        "sql_schema": "Reading the database's tables", "memory_search": "The memory search",
        "notes_search": "The notes search"}
EMPTY_RESULTS = ("No memory matches this query.", "No note matches this query.", "The statement returned nothing.")
_ROWS = re.compile(r"^\((\d+) rows(?:; more rows exist, not shown)?\)$")
_CALCULATION = re.compile(r"^(?P<expression>.+?) = (?P<value>\S+)$")
_RANK = re.compile(r"^\d+\.\s+")  # "1. " before a recalled memory
MAX_LISTED_ROWS = 10


def is_empty(call: ToolCall) -> bool:
    """Whether a call that ran gave nothing to answer from: no text, no match, no rows."""
    text = call.result.strip()
    return not text or text in EMPTY_RESULTS or (call.name == "sql_query" and text.endswith("\n(0 rows)"))


def usable(calls: Sequence[ToolCall]) -> list[ToolCall]:
    """The calls whose results an answer may be built from: not the user's replies, and not
    the schema listing of a turn that queried the database (it was read to write the query,
    and its names and counts answer nothing)."""
    queried = any(call.name == "sql_query" for call in calls)
    return [call for call in calls if call.name != ASK_USER and call.error is None and not is_empty(call)
            and not (queried and call.name == "sql_schema")]


_NUMBER_CELL = re.compile(r"^[-+]?[\d.,]+%?$")


def plain_answer(call: ToolCall) -> str:
    """An answer made from one result by template."""
    text = call.result.strip()
    if call.name == "calculator" and (match := _CALCULATION.match(text)):
        return f"The result is {match['value']}."
    if call.name == "sql_query":
        return _table_answer(text)
    if call.name == "date":
        return text
    source = {"memory_search": "From your memory", "notes_search": "From your notes"}.get(call.name, "The result")
    first = _RANK.sub("", text.splitlines()[0])
    return f"{source}: {first}"


def _table_answer(text: str) -> str:
    """A SQL result (header, rows, row count) as a sentence."""
    lines = text.splitlines()
    if len(lines) < 3 or not _ROWS.match(lines[-1]):
        return f"The query returned: {text}"
    header, rows = lines[0], lines[1:-1]
    if len(rows) == 1 and " | " not in header:
        return f"The result is {rows[0]}."
    if len(rows) == 1:
        pairs = zip(header.split(" | "), rows[0].split(" | "), strict=False)
        return "The result is " + ", ".join(f"{name} {value}" for name, value in pairs) + "."
    listed = "; ".join(rows[:MAX_LISTED_ROWS])
    more = "" if len(rows) <= MAX_LISTED_ROWS else f" and {len(rows) - MAX_LISTED_ROWS} more"
    return f"The query returned {len(rows)} rows ({header}): {listed}{more}."


def failure_answer(calls: Sequence[ToolCall], question: str) -> str:
    """The answer of a turn none of whose calls gave a result: what failed and why, or that it
    came back empty. An error text goes in only when it holds no number or date that the
    question does not (it is always in the turn's notices and trace)."""
    said: list[str] = []
    queried = any(call.name == "sql_query" for call in calls)
    for call in calls:
        if call.name == ASK_USER or (queried and call.name == "sql_schema"):
            continue
        what = WHAT.get(call.name, f"The {call.name} tool")
        if call.error is not None:
            sentence = f"{what} failed: {call.error.rstrip('.')}."
            if not check(sentence, [question], kinds=("number", "date", "weekday", "time")).ok:
                sentence = f"{what} failed (the error is in the trace)."
        else:
            sentence = f"{what} found nothing."
        if sentence not in said:
            said.append(sentence)
    if not said:
        return "I could not work this out with the tools."
    return "I could not answer this. " + " ".join(said)


def one_row_words(call: ToolCall) -> list[str]:
    """The words of a one-row SQL result's cells that are no numbers ("healthcare" of
    "job_industry | count(*) / healthcare | 13"): what the answer to "which industry ...?" names."""
    lines = call.result.strip().splitlines() if call.name == "sql_query" else []
    if len(lines) != 3 or not _ROWS.match(lines[-1]) or " | " not in lines[0]:
        return []
    cells = [cell.strip() for cell in lines[1].split(" | ")]
    return [cell for cell in cells if cell and not _NUMBER_CELL.match(cell) and cell.lower() not in ("null", "none")]
