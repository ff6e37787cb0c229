"""The words of a database question that a query covers past its own reading (issue 42), kept
as data with what in the SQL covers each:

- a tie-break ("If there's a tie, the alphabetically first", "lowest id if tie"): read into the
  query as a second sort key (`then_by`, `then_order`), and then settled;
- "inclusive" beside a range both of whose ends the query keeps (>= and <=);
- "a single" after a negation ("never made a single purchase"): any at all;
- "at least one", "1 or more" beside a count of the rows that have one.

Unknown qualifiers ("premium", "churned") are no part of this: the reader still doubts them."""

from __future__ import annotations

import re
from typing import Any

from .sql_catalog import Catalog
from .sql_query import name_words

TIE = re.compile(r"\b(?:if\s+(?:there\s+is\s+|there's\s+|theres\s+|it's\s+|it\s+is\s+|they're\s+|they\s+are\s+)?"
                 r"(?:an?\s+)?(?:tie|tied|ties|draw)|in\s+(?:case|the\s+event)\s+of\s+(?:a\s+)?(?:tie|ties|draw)|"
                 r"ties?\s+(?:broken|go(?:es)?|settled|decided)\s+(?:by|to)|break(?:ing)?\s+(?:any\s+)?ties?|"
                 r"on\s+a\s+tie)\b", re.IGNORECASE)
_ALPHABETICAL = re.compile(r"\b(?:alphabetical(?:ly)?|a\s*-\s*z|by\s+name)\b", re.IGNORECASE)
_DESCENDING = re.compile(r"\b(?:highest|largest|biggest|last|latest|newest|most|max(?:imum)?|z\s*-\s*a)\b",
                         re.IGNORECASE)
# Each covered phrase and the SQL that covers it.
COVERED: tuple[tuple[re.Pattern[str], re.Pattern[str]], ...] = (
    (re.compile(r"\b(?:inclusive(?:ly)?|both\s+(?:ends\s+)?(?:included|inclusive|counted))\b", re.IGNORECASE),
     re.compile(r">= \?.* <= \?|<= \?.* >= \?|\bBETWEEN\b")),
    (re.compile(r"\b(?:at\s+least\s+(?:one|1)|(?:one|1)\s+or\s+more)\b(?!\s*(?:%|percent|years?))", re.IGNORECASE),
     re.compile(r"count\(DISTINCT|\bJOIN\b")),  # "made 1 or more purchases": that there is one
    (re.compile(r"(?:\b(?:never|not|no|without)|n't)(?:\s+\w+){0,2}?\s+(?P<covered>(?:a\s+|one\s+)?single)\b",
                re.IGNORECASE),
     re.compile(r"\bNOT\s+(?:EXISTS|IN)\b")),
)
# The words of a "per" question that its SQL covers: the rows it is per, and which of them count.
_PER_WORDS = re.compile(r"\b(?:per|for\s+each|for\s+every|each)\s+\w+|\b(?:all|every)\s+(?:the\s+)?\w+|"
                        r"\b(?:incl(?:uding|uded)?|even|counting)\b[^.?!]{0,30}?\b(?:none|zero)\b|"
                        r"\b(?:with|who\s+have|having)\s+(?:at\s+least\s+(?:one|1)|any|(?:one|1)\s+or\s+more)\b",
                        re.IGNORECASE)
_PER_SQL = re.compile(r'AS "per\(')
_TIE_SQL = re.compile(r"\bORDER BY [^,]+,\s")


def tie_clause(message: str) -> tuple[int, int] | None:
    """Where the clause of `message` that says how to break a tie stands, or None."""
    match = TIE.search(message)
    if match is None:
        return None
    starts = [0, *(m.end() for m in re.finditer(r"[.;!?()]|,\s", message))]  # "..., lowest id if tie"
    ends = [*(m.start() for m in re.finditer(r"[.;!?()]", message)), len(message)]  # "If tied, pick the lowest id."
    return max(at for at in starts if at <= match.start()), min(at for at in ends if at >= match.end())


def break_tie(catalog: Catalog, message: str, query: dict[str, Any]) -> dict[str, Any] | None:
    """`query` (ordered, one row) with the tie-break the message asks for as its second sort
    key, or None when it asks for none or names no column of the query's table."""
    span = tie_clause(message)
    if span is None or not query.get("limit") or not query.get("order"):
        return None
    clause = message[span[0]:span[1]]
    table = catalog.table(str(query.get("table", "")))
    if table is None:
        return None
    column = None
    if _ALPHABETICAL.search(clause):
        shown = query.get("group_by") or (query.get("column") if query.get("select") == "value" else None)
        column = shown if shown and shown != query.get("order_by") else None
    else:
        words = set(re.findall(r"[a-z]+", clause.lower()))
        named = [c.name for c in table.columns if set(name_words(c.name)) <= words]
        column = named[0] if len(named) == 1 else None
    if column is None:
        return None
    return {**query, "then_by": column, "then_order": "desc" if _DESCENDING.search(clause) else "asc"}


def covered(message: str, sql: str) -> str:
    """`message` with the phrases its query `sql` covers blanked out (positions kept)."""
    spans = [match.span("covered" if "covered" in phrase.groupindex else 0)
             for phrase, by in COVERED if by.search(sql) for match in phrase.finditer(message)]
    if _PER_SQL.search(sql):
        spans += [match.span() for match in _PER_WORDS.finditer(message)]
    if _TIE_SQL.search(sql) and (tie := tie_clause(message)) is not None:
        spans.append(tie)
    for start, end in spans:
        message = message[:start] + " " * (end - start) + message[end:]
    return message
