"""Question forms of the SQL reader past a plain count or aggregate (issue 42), each read whole
or not at all (then the turn shows what it did run, or the model is asked and its query shown):

- a share: "what percentage of users work in finance" (one condition, the part counted);
- a distinct count: "how many different cities do our users live in", "how many activity types";
- rows with none in a table that refers to them: "how many users have never done any activity",
  "users in Denver with no activity in 2024" (NOT EXISTS);
- rows per row of the table they refer to: "the average number of activities per user (all
  users, incl ones with none)";
- the value a superlative names: "age of the oldest user in Krakow", "how old is the youngest
  user" (max or min of the column, not the row's name).

Like sql_query.py, nothing here names a table or column of one database."""

from __future__ import annotations

import re
from typing import Any

from .sql_builder import referring
from .sql_catalog import Column, Table
from .sql_query import COUNT, SqlQuestion, name_words, stem_of, word_forms

_SHARE = re.compile(r"\b(?:percentage|percent|share)\s+of\s+(?:the\s+|our\s+|all\s+)?([a-z_]+)|%\s+of\s+"
                    r"(?:the\s+|our\s+|all\s+)?([a-z_]+)")
_NEGATION = re.compile(r"\b(?:never|without|no|not|havent|hasnt|didnt|dont|doesnt)\b|n't\b")
_PER = re.compile(r"\b(?:average|avg|mean)\s+(?:number|count|amount)\s+of\s+([a-z_]+)\s+(?:per|for\s+each|for\s+every|"
                  r"each|a)\s+([a-z_]+)")
# Which rows of the per table count: all of them, those with none too ("all users, incl ones with
# none"), or only those with at least one; a question that says neither is not read.
_ALL_ROWS = re.compile(r"\b(?:all|every)\s+(?:the\s+|of\s+the\s+)?([a-z_]+)|\b(?:incl(?:uding|uded)?|even|counting)\b"
                       r"[^.?!]{0,30}?\b(?:none|no\s+[a-z_]+|zero|0)\b")
_ANY_ROWS = re.compile(r"\b(?:with|who\s+have|that\s+have|having|among)\s+"
                       r"(?:at\s+least\s+(?:one|1)|any|(?:one|1)\s+or\s+more)\b")
_SUPERLATIVE = re.compile(r"\b(?:the\s+)?(oldest|youngest|most\s+recent|latest|newest|earliest)\s+([a-z_]+)")


def read_form(question: SqlQuestion) -> dict[str, Any] | None:
    """The structured query of a form this module reads, or None."""
    for form in (_per, _without, _share, _distinct, _superlative_value):
        if (query := form(question)) is not None:
            return query
    return None


def _per(question: SqlQuestion) -> dict[str, Any] | None:
    """"the average number of activities per user": the rows of a table over the rows of the
    table it refers to, all of them (those with none too) or only those with at least one, as
    the question says; no filters yet."""
    match = _PER.search(question.text)
    if match is None or question.values:
        return None
    counted, per = question.table_named(match[1], strong=True), question.table_named(match[2])
    if counted is None or per is None or per not in question.catalog.joinable(counted):
        return None
    rest = question.text[match.end():]
    every = [found for found in _ALL_ROWS.finditer(rest) if not found[1] or question.table_named(found[1]) is per]
    rows = "all" if every and not _ANY_ROWS.search(rest) else "with_any" if _ANY_ROWS.search(rest) else ""
    if not rows or re.search(r"\d{4}|\b(?:than|over|under|between|in|from)\b", rest):
        return None
    return {"table": counted.name, "select": "per", "column": "*", "per": per.name, "per_rows": rows}


def _share(question: SqlQuestion) -> dict[str, Any] | None:
    match = _SHARE.search(question.text)
    if match is None or _NEGATION.search(question.text):
        return None
    table = question.table_named(match[1] or match[2])
    if table is None:
        return None
    part = question.filters(table)
    if len(part) != 1:
        return None  # "of users in Lisbon, what share work in finance": which part is the whole?
    return {"table": table.name, "select": "share", "column": "*", "part": part}


def _distinct(question: SqlQuestion) -> dict[str, Any] | None:
    """A count of a column's different values: the count's noun names a column ("activity
    types"), or is a plural that means one ("cities") and names no table."""
    match = COUNT.search(question.text)
    if match is None or _NEGATION.search(question.text):
        return None
    phrase = " ".join(question.text[match.start(2):].split()[:2])
    listed = [c for c in question.columns if c.kind == "text" and not c.unique and c.choices]
    columns = [c for c in listed if re.match(_name_pattern(c), phrase)]
    if not columns and match[2].endswith("s") and question.table_named(match[2], strong=True) is None:
        # a plural noun that means a column ("cities"); "working days" is no column's values
        alone = SqlQuestion(question.catalog, question.columns, match[2], [])
        columns = [c for c in alone.mentioned("text") if c in listed]
    if len(columns) != 1 or any(c is columns[0] for c, _ in question.values):
        return None
    table = question.catalog.table(columns[0].table)
    if table is None:
        return None
    return {"table": table.name, "select": "count_distinct", "column": columns[0].name,
            "filters": question.filters(table)}


def _name_pattern(column: Column) -> str:
    """A column's name as words, the last one also plural ("activity types")."""
    words = name_words(column.name)
    return r"\s+".join([*map(re.escape, words[:-1]), f"(?:{word_forms(words[-1])})"]) + r"\b"


def _without(question: SqlQuestion) -> dict[str, Any] | None:
    """The rows of the counted table with no row in a table that refers to it, where the words
    after the negation name that table or one of its values."""
    negation = _NEGATION.search(question.text)
    counted, distinct = question.counted()
    if negation is None or counted is None or distinct or len(_NEGATION.findall(question.text)) != 1:
        return None
    before, after = question.text[:negation.start()], question.text[negation.end():]
    others = [other for other in referring(question.catalog, counted) if _names(question, other, after)]
    if len(others) != 1:
        return None
    other = others[0]
    inner_values = [(c, v) for c, v in question.values if c.table == other.name]
    inner_values += [found for found in _verb_values(other, after) if found not in inner_values]
    outer_values = [(c, v) for c, v in question.values if c.table == counted.name]
    if any(found not in inner_values + outer_values for found in question.values) or any(
            not any(stem_of(word, v.lower()) for word in re.findall(r"[a-z]+", after)) for c, v in inner_values):
        return None
    inner = SqlQuestion(question.catalog, question.columns, after, inner_values)
    outer = SqlQuestion(question.catalog, question.columns, before, outer_values)
    try:
        if inner._number_filters(other) or inner._key_filters(other):
            return None  # a number after "never" may be about either table
        inner_filters = [*inner.filters(other)]
        outer_filters = outer.filters(counted)
    except LookupError:
        return None
    if any("." in str(item["column"]) for item in inner_filters):
        return None
    return {"table": counted.name, "select": "count", "column": "*", "filters": outer_filters,
            "without": {"table": other.name, "filters": inner_filters}}


def _names(question: SqlQuestion, table: Table, text: str) -> bool:
    """Whether `text` names `table` or a value of one of its columns (or a verb of one: "posted")."""
    words = re.findall(r"[a-z_]+", text)
    if any(question.table_named(word, strong=True) is table for word in words):
        return True
    return any(c.table == table.name and v.lower() in text for c, v in question.values) or bool(
        _verb_values(table, text))


def _verb_values(table: Table, text: str) -> list[tuple[Column, str]]:
    """The values of `table`'s short columns that a word of `text` is a form of ("never posted": post)."""
    words = re.findall(r"[a-z]+", text)
    return [(column, value) for column in table.columns for value in column.choices
            if any(stem_of(word, value.lower()) for word in words)]


def _superlative_value(question: SqlQuestion) -> dict[str, Any] | None:
    """"age of the oldest user": the superlative's own column asked for, so its max or min."""
    match = _SUPERLATIVE.search(question.text)
    if match is None or re.search(r"\b(?:who|which|name|email)\b", question.text):
        return None
    table = question.table_named(match[2])
    if table is None:
        return None
    rest = question.text[:match.start()] + " " + question.text[match.end():]
    kind = "number" if match[1] in ("oldest", "youngest") else "date"
    column = question.number_column(table) if kind == "number" else question.date_column(table)
    if column is None or column.table != table.name:
        return None
    asked = SqlQuestion(question.catalog, question.columns, rest, [])
    if column not in asked.mentioned(kind):
        return None  # "who is the oldest user": the row, not the value
    select = "min" if match[1] in ("youngest", "earliest") else "max"
    return {"table": table.name, "select": select, "column": column.name, "filters": question.filters(table)}
