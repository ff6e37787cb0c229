"""Rules that read a question about the database into a structured query (sql_builder.py),
from what the catalog holds: its table names, its column names and the values of its text
columns with few values. Nothing here names a table or column of one particular database.

What it reads:
- values the question names ("Lisbon", "purchases") become filters on their column, and the
  question's table is the one whose rows it counts ("how many purchases" counts rows of the
  table whose column holds "purchase"); a filter on a table the counted one cannot reach,
  which reaches it, turns the count into a count of distinct keys ("how many users made a
  purchase");
- columns by their name ("signup date", "last login", "industry") or by a few common words
  for a column's meaning (old/young for an age, city/live for a location, work/job for an
  industry or job, who for the identifying column);
- count (how many, number of), avg, min and max ("average age", "youngest age", "most
  recent signup"), the row of a superlative ("the oldest user": ordered, one row), and a
  column's value with the most or fewest rows or the highest average ("which city has the
  most users");
- comparisons of a number column (older than 50, under 25, between 30 and 40, exactly 30),
  a row by its key ("user 42"), and dates by year, month and year, after or before a year.

A question with a name (a capitalized word or a value-like word after "in" or "from") that
the catalog does not hold, or with no form it reads, is left to the model."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ..errors import ToolError
from ..reading.words import MONTHS as MONTH_NAMES
from ..reading.words import STOPWORDS, WEEKDAYS, word_set
from .coverage import asked_part
from .question_text import asks, normalize
from .sql_builder import to_sql
from .sql_catalog import Catalog, Column
from .sql_forms import read_form
from .sql_query import (
    COUNT,
    MEANINGS,
    MONTHS,
    PEOPLE,
    SqlQuestion,
    form_of,
    name_words,
    stem_of,
    verb_forms,
    word_forms,
)
from .sql_ties import break_tie

_OPENERS = (r"what|whats|what's|which|who|how|when|list|show|count|give|tell\s+me|can\s+you|could\s+you|"
            r"number|total|avg|average|find|i\s+need|i'?d\s+like|i\s+want|please\s+(?:give|tell|show|count|find)")
_WEEKDAYS = "|".join(WEEKDAYS)
DATABASE_WORDS = word_set("database_question")


# A question written as a noun phrase: "age of oldest user in Krakow", "percentage of users in finance".
_NOUN_PHRASE = re.compile(r"^\W*(?:the\s+)?(?:(?:percentage|percent|share|proportion|average|mean|avg|max|maximum|min|"
                          r"distinct|unique|different|number\s+of|count\s+of|most\s+common|least\s+common|"
                          r"minimum|highest|lowest|oldest|youngest|latest|earliest|newest|top\s+\d+)\b|[a-z_]+\s+of\s+"
                          r"(?:the\s+)?(?:\d+\s+)?(?:oldest|youngest|latest|earliest|newest|most\s+recent)\b"
                          r"|[a-z_]+s\s+(?:who|that|which|aged|with|without)\b)")  # "users aged 65 or more"
# A noun phrase that counts different rows: "distinct users who commented in 2023" asks how many
# ("distinct locations" alone may ask for the list: no reading).
_DISTINCT_PHRASE = re.compile(r"^\W*(?:the\s+)?(distinct|unique)\s+(?=[a-z_]+s\s+(?:who|that|which|with)\b)")
_STATEMENT = re.compile(r"\b(?:is|are|was|were|am|i|i'm|me|my|we|we're|you|he|she|they)\b")


def _asks(text: str) -> bool:
    """Whether a normalized message asks something of the database: a question, or a noun phrase
    that names what to compute (no verb of a statement: "the oldest user in Krakow is my aunt")."""
    return asks(text, _OPENERS) or (_NOUN_PHRASE.search(text) is not None and not _STATEMENT.search(text))


class SqlReader:
    """Reads questions about one database (its catalog)."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self.columns = [column for table in catalog.tables for column in table.columns]
        self.vocabulary = frozenset(word for table in catalog.tables for word in name_words(table.name)) | frozenset(
            word for column in self.columns for name in (column.name, *column.choices) for word in name_words(name))
        self.values = frozenset(value.lower() for column in self.columns for value in column.choices)
        self.value_columns = {value.lower(): column.name for column in self.columns for value in column.choices}
        tables = {word for table in catalog.tables for word in name_words(table.name)}
        self.named_columns = {word: column.name for column in self.columns for word in name_words(column.name)
                              if word not in tables | self.values | {"id", "date", "type", "name", "last"}}
        meanings = (MEANINGS[word] for column in self.columns for word in name_words(column.name) if word in MEANINGS)
        self.known = (self.vocabulary - self.values) | DATABASE_WORDS | STOPWORDS | frozenset(MONTH_NAMES) | frozenset(
            word for pattern in meanings for word in re.findall(r"[a-z]+", pattern)) | frozenset(
            re.findall(r"[a-z]+", PEOPLE))

    def read(self, message: str) -> dict[str, Any] | None:
        """The structured query of a question this reads, or None."""
        text = self._text(message)
        if not _asks(text):
            return None  # a statement about one's youngest child or a charity's total is no question
        taken: list[tuple[int, int]] = []
        values = self._values(text, taken)
        unknown = self._unknown_name(message)
        if unknown:
            return self._not_held(text, values, unknown)
        try:
            question = SqlQuestion(self.catalog, self.columns, text, values)
            query = read_form(question) or question.build()
            if query is not None:
                query = break_tie(self.catalog, message, query) or query
                to_sql(self.catalog, query)
        except (ToolError, LookupError):
            return None
        return query

    def unread(self, message: str, sql: str, parameters: Sequence[Any]) -> str | None:
        """A word of the question that the query (`sql` with `parameters`) does not account for,
        quoted, or None: a word that names a value of the database the query does not use
        ("have both purchased and uploaded"), or a word neither the database nor a question
        about it is made of ("premium", "churned")."""
        text = self._text(asked_part(message))
        held = (" ".join(str(value) for value in parameters) + " " + sql).lower()
        for column in self.columns:  # "last login" names the column, not the value login
            if len(name_words(column.name)) > 1 and column.name in held:
                text = re.sub(r"\b" + r"[\s_]+".join(map(re.escape, name_words(column.name))) + r"\b", " ", text)
        for written in re.findall(r"(?<![\w/])[a-z][a-z']*", text):  # not the st of 1st
            word = written.replace("'", "")
            named = self.named_columns.get(word)
            if named is not None and f'"{named}"' not in held:
                return f'"{word}"'  # "users with a gmail address": the email column, which the query does not use
            value = next((v for v in self.values if stem_of(word, v)), None)
            if value is not None and value not in held and (
                    form_of(word, value) or f'"{self.value_columns[value]}"' not in held):
                return f'"{word}"'  # "posted" beside a query on "comment" is a verb, not the value post
            if value is None and written not in self.known and not any(stem_of(word, known) for known in self.known):
                return f'"{word}"'
        return None

    def asks_for_data(self, message: str) -> bool:
        """Whether a question it cannot read still asks for data the database holds: it names
        a table, column or value, and asks for a count, an aggregate, a superlative or a list,
        or names a table with a value or column of it and ends with a question mark ("users in
        lisbon?", "any users older than 80?"; not "have you been to Lisbon?", "my users keep
        asking for a dark mode, any tips?")."""
        text = self._text(message)
        if not _asks(text):
            return False
        query = SqlQuestion(self.catalog, self.columns, text, self._values(text, []))
        table = any(query.table_named(word, strong=True) is not None for word in re.findall(r"[a-z_]+", text))
        plural = any(re.search(rf"\b(?:{word_forms(word)})\b", text) for word in self.named_columns)  # "the industries"
        named = bool(query.values or query.mentioned(by_meaning=False)) or table or plural
        wants = re.search(r"\b(?:how\s+many|number\s+of|count|average|avg|mean|total|sum|most|least|fewest|highest|"
                          r"lowest|oldest|youngest|latest|earliest|list|show|which|who|percentage|percent|share|"
                          r"proportion|ratio|fraction|distinct|different|unique|top|never|without|median)\b|%", text)
        rows = any(re.search(rf"\b(?:{word_forms(value.lower())})\b", text) and not re.search(
            rf"\b{re.escape(value.lower())}\b", text) for _, value in query.values)  # "purchases": rows, "Lisbon": not
        qualified = "?" in text and ((table and bool(query.values or query.mentioned() or re.search(r"\d", text)))
                                     or rows)
        return named and (wants is not None or qualified)

    def _text(self, message: str) -> str:
        text = normalize(message, self.vocabulary | DATABASE_WORDS)  # "diffrent users" is a misspelling of one
        text = re.sub(r"\bsign(?:ed|ing)?[\s-]+ups?\b|\bsignups\b", "signup", text)
        text = re.sub(r"\blog(?:ged|ging)?[\s-]+ins?\b|\blogins\b", "login", text)
        text = re.sub(r"\b(19|20)\s+(\d\d)\b", r"\1\2", text)  # twenty twenty-three
        text = re.sub(r"\bq([1-4])(?:\s+of)?\s+((?:19|20)\d\d)\b",
                      lambda m: f"{('first', 'second', 'third', 'fourth')[int(m[1]) - 1]} quarter of {m[2]}", text)
        return _DISTINCT_PHRASE.sub(r"how many \1 ", text)

    def _values(self, text: str, taken: list[tuple[int, int]]) -> list[tuple[Column, str]]:
        """The catalog values the question names, each once, longest first; a value inside a
        column's own name ("last login") is the column, not the value."""
        for column in self.columns:
            if len(name_words(column.name)) > 1:
                for match in re.finditer(r"\b" + r"[\s_]+".join(map(re.escape, name_words(column.name))) + r"\b", text):
                    taken.append(match.span())
        found: list[tuple[Column, str]] = []
        choices = sorted(((c, v) for c in self.columns for v in c.choices), key=lambda item: -len(item[1]))
        for column, value in choices:
            for match in re.finditer(rf"\b(?:{word_forms(value.lower())}|{verb_forms(value.lower())})\b", text):
                if not any(start <= match.start() < end for start, end in taken):
                    taken.append(match.span())
                    if (column, value) not in found:
                        found.append((column, value))
        return found

    def _unknown_name(self, message: str) -> str:
        """A name the question uses that the catalog does not hold (a capitalized word inside
        a sentence, not a month or weekday), or ""."""
        for match in re.finditer(r"(?<=[a-z,] )([A-Z][a-z]+)", message):
            word = match[1].lower()
            if word not in self.vocabulary and not re.fullmatch(f"{MONTHS}|{_WEEKDAYS}", word):
                return match[1]
        return ""

    def _not_held(self, text: str, values: list[tuple[Column, str]], name: str) -> dict[str, Any] | None:
        """A count filtered on a name the database does not hold ("how many users live in
        Oslo"), when the question counts and names the column, or its table has one column
        of capitalized names: the tool then says that the name is not one of its values."""
        try:
            query = SqlQuestion(self.catalog, self.columns, text, values)
            counted, _ = query.counted()
            if not COUNT.search(text):
                return None
            table = query.main_table(counted)
        except LookupError:
            return None
        columns = [c for c in query.mentioned("text") if c.choices]
        columns = columns or [c for c in table.columns if c.choices and all(v[:1].isupper() for v in c.choices)]
        if len(columns) != 1 or not re.search(rf"\b(?:in|from|at|of|called|named)\s+{name.lower()}\b", text):
            return None
        return {"table": table.name, "select": "count", "column": "*",
                "filters": [{"column": query.reachable_name(table, columns[0]), "op": "=", "value": name}]}
