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
from typing import Any

from ..errors import ToolError
from .question_text import asks, normalize
from .sql_builder import to_sql
from .sql_catalog import Catalog, Column, Table

# Common words for what a column means, by a word its name holds.
MEANINGS = {
    "age": r"old|older|oldest|young|younger|youngest|aged?",
    "location": r"city|cities|town|towns|place|places|live|lives|living|based|where",
    "city": r"city|cities|town|towns|live|lives|living|based|where",
    "industry": r"work|works|working|job|jobs|sector|sectors|field|profession",
    "job": r"work|works|working|job|jobs|profession|occupation",
    "email": r"e-?mails?|address",
}
PEOPLE = r"people|persons|folks|members|customers|accounts"
_OPENERS = (r"what|whats|what's|which|who|how|when|list|show|count|give|tell\s+me|can\s+you|could\s+you|"
            r"number|total|avg|average|find")
_COUNT = re.compile(r"\b(?:how\s+many|number\s+of|count(?:\s+of)?|total\s+number\s+of|total)\s+"
                    r"(?:(distinct|different|unique)\s+)?([a-z_]+)")
_GREATER = r"older\s+than|more\s+than|greater\s+than|over|above|bigger\s+than|higher\s+than|after"
_LESS = r"younger\s+than|less\s+than|fewer\s+than|under|below|lower\s+than|smaller\s+than|before"
_YEAR = r"(19\d\d|20\d\d)"


def _words(name: str) -> list[str]:
    return [word for word in re.split(r"[_\W]+", name.lower()) if word]


def _forms(word: str) -> str:
    """A pattern for a word and its plural (activity, activities; user, users)."""
    stem = re.escape(word)
    if word.endswith("y") and len(word) > 2 and word[-2] not in "aeiou":
        return rf"{stem}|{re.escape(word[:-1])}ies"
    return rf"{stem}(?:s|es)?" if not word.endswith("s") else rf"{stem}|{re.escape(word[:-1])}"


class SqlReader:
    """Reads questions about one database (its catalog)."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self.columns = [column for table in catalog.tables for column in table.columns]
        self.vocabulary = frozenset(word for table in catalog.tables for word in _words(table.name)) | frozenset(
            word for column in self.columns for name in (column.name, *column.choices) for word in _words(name))

    def read(self, message: str) -> dict[str, Any] | None:
        """The structured query of a question this reads, or None."""
        text = self._text(message)
        if not asks(text, _OPENERS):
            return None  # a statement about one's youngest child or a charity's total is no question
        taken: list[tuple[int, int]] = []
        values = self._values(text, taken)
        unknown = self._unknown_name(message)
        if unknown:
            return self._not_held(text, values, unknown)
        try:
            query = _Query(self, text, values).build()
            if query is not None:
                to_sql(self.catalog, query)
        except (ToolError, LookupError):
            return None
        return query

    def asks_for_data(self, message: str) -> bool:
        """Whether a question it cannot read still asks for data the database holds: it names
        a table, column or value, and asks for a count, an aggregate, a superlative or a list."""
        text = self._text(message)
        if not asks(text, _OPENERS):
            return False
        query = _Query(self, text, self._values(text, []))
        named = bool(query.values or query.mentioned(by_meaning=False)) or any(
            query.table_named(word, strong=True) is not None for word in re.findall(r"[a-z_]+", text))
        wants = re.search(r"\b(?:how\s+many|number\s+of|count|average|mean|total|sum|most|least|fewest|highest|"
                          r"lowest|oldest|youngest|latest|earliest|list|show|which|who)\b", text)
        return named and wants is not None

    def _text(self, message: str) -> str:
        text = normalize(message, self.vocabulary)
        text = re.sub(r"\bsign(?:ed|ing)?[\s-]+ups?\b|\bsignups\b", "signup", text)
        text = re.sub(r"\blog(?:ged|ging)?[\s-]+ins?\b|\blogins\b", "login", text)
        text = re.sub(r"\b(19|20)\s+(\d\d)\b", r"\1\2", text)  # twenty twenty-three
        return text

    def _values(self, text: str, taken: list[tuple[int, int]]) -> list[tuple[Column, str]]:
        """The catalog values the question names, each once, longest first; a value inside a
        column's own name ("last login") is the column, not the value."""
        for column in self.columns:
            if len(_words(column.name)) > 1:
                for match in re.finditer(r"\b" + r"[\s_]+".join(map(re.escape, _words(column.name))) + r"\b", text):
                    taken.append(match.span())
        found: list[tuple[Column, str]] = []
        choices = sorted(((c, v) for c in self.columns for v in c.choices), key=lambda item: -len(item[1]))
        for column, value in choices:
            for match in re.finditer(rf"\b(?:{_forms(value.lower())})\b", text):
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
            if word not in self.vocabulary and not re.fullmatch(f"{_MONTHS}|{_WEEKDAYS}", word):
                return match[1]
        return ""

    def _not_held(self, text: str, values: list[tuple[Column, str]], name: str) -> dict[str, Any] | None:
        """A count filtered on a name the database does not hold ("how many users live in
        Oslo"), when the question counts and names the column, or its table has one column
        of capitalized names: the tool then says that the name is not one of its values."""
        try:
            query = _Query(self, text, values)
            counted, _ = query.counted()
            if not _COUNT.search(text):
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


_MONTHS = (r"january|february|march|april|may|june|july|august|september|october|november|december|"
           r"jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec")
_WEEKDAYS = r"monday|tuesday|wednesday|thursday|friday|saturday|sunday"
_MONTH_NUMBER = {name: index % 12 + 1 for index, name in enumerate(_MONTHS.split("|")[:12])} | {
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9, "oct": 10,
    "nov": 11, "dec": 12}


class _Query:
    """One question's reading."""

    def __init__(self, reader: SqlReader, text: str, values: list[tuple[Column, str]]) -> None:
        self.reader, self.catalog, self.text, self.values = reader, reader.catalog, text, values

    # -- columns and tables -------------------------------------------------------------
    def mentioned(self, kind: str | None = None, by_meaning: bool = True) -> list[Column]:
        """Columns the question names, by name or (`by_meaning`) by meaning, in order."""
        found: list[tuple[int, Column]] = []
        for column in self.reader.columns:
            if kind and column.kind != kind:
                continue
            words = _words(column.name)
            patterns = [r"[\s_]+".join(map(re.escape, words))]
            patterns += [MEANINGS[word] for word in words if word in MEANINGS and by_meaning]
            patterns += [re.escape(word) for word in words if word not in ("id", "date", "type", "last", "name")
                         and sum(word in _words(c.name) for c in self.reader.columns) == 1
                         and not any(word == v.lower() for c in self.reader.columns for v in c.choices)]
            match = re.search(r"\b(?:" + "|".join(f"(?:{p})" for p in patterns) + r")\b", self.text)
            if match:
                found.append((match.start(), column))
        return [column for _, column in sorted(found, key=lambda item: item[0])]

    def table_named(self, word: str, strong: bool = False) -> Table | None:
        """The table a word names: its name or last word ("activities"), or, unless `strong`,
        "people" and the like for a table of users, persons or customers when the question
        also names one of its columns or values (chat says "people" all the time)."""
        for table in self.catalog.tables:
            words = _words(table.name)
            if re.fullmatch(rf"(?:{_forms(words[-1])}|{_forms(table.name)})", word):
                return table
        if not strong and re.fullmatch(PEOPLE, word) and (self.values or self.mentioned(by_meaning=False)):
            return next((t for t in self.catalog.tables if re.search(r"user|person|people|customer|member", t.name)),
                        None)
        return None

    def counted(self) -> tuple[Table | None, bool]:
        """The table whose rows a count counts, and whether it asks for distinct ones."""
        match = _COUNT.search(self.text)
        if match is None:
            return None, False
        noun = match[2]
        table = self.table_named(noun)
        if table is None:
            value = next((c for c, v in self.values if re.fullmatch(_forms(v.lower()), noun)), None)
            table = self.catalog.table(value.table) if value else None
        return table, bool(match[1])

    def main_table(self, hint: Table | None) -> Table:
        if hint is not None:
            return hint
        scores: dict[str, int] = {}
        for column in self.mentioned() + [c for c, _ in self.values]:
            scores[column.table] = scores.get(column.table, 0) + 1
        for candidate in self.catalog.tables:
            if any(self.table_named(word) is candidate for word in re.findall(r"[a-z_]+", self.text)):
                scores[candidate.name] = scores.get(candidate.name, 0) + 2
        if not scores:
            raise LookupError("the question names no table, column or value of the database")
        best = self.catalog.table(max(scores, key=lambda name: scores[name]))
        if best is None:
            raise LookupError("no such table")
        return best

    def reachable_name(self, table: Table, column: Column) -> str:
        if column.table == table.name:
            return column.name
        target = self.catalog.table(column.table)
        if target is None or target not in self.catalog.joinable(table):
            raise LookupError(f"{column.qualified} is not reachable from {table.name}")
        return column.qualified

    # -- filters ------------------------------------------------------------------------
    def number_column(self, table: Table) -> Column | None:
        mentioned = [c for c in self.mentioned("number") if not c.name.endswith("id")]
        if mentioned:
            return mentioned[0]
        numbers = [c for t in [table, *self.catalog.joinable(table)] for c in t.columns
                   if c.kind == "number" and c.name != "id" and not c.name.endswith("_id")]
        return numbers[0] if len(numbers) == 1 else None

    def date_column(self, table: Table) -> Column | None:
        mentioned = self.mentioned("date")
        if mentioned:
            return mentioned[0]
        own = [c for c in table.columns if c.kind == "date"]
        return own[0] if own else None

    def filters(self, table: Table) -> list[dict[str, Any]]:
        found = [{"column": self.reachable_name(table, c), "op": "=", "value": v} for c, v in self.values]
        found += self._key_filters(table) + self._number_filters(table) + self._date_filters(table)
        return found

    def _key_filters(self, table: Table) -> list[dict[str, Any]]:
        found = []
        for match in re.finditer(r"\b([a-z]+)\s+(?:id\s+|#\s*|number\s+)?(\d+)\b", self.text):
            target = self.table_named(match[1])
            if target is None:
                continue
            if target is table:
                found.append({"column": "id", "op": "=", "value": int(match[2])})
            else:
                key = next((own for own, (other, _) in table.references.items() if other == target.name), None)
                if key:
                    found.append({"column": key, "op": "=", "value": int(match[2])})
        return found

    def _number_filters(self, table: Table) -> list[dict[str, Any]]:
        text = re.sub(rf"\b(?:in|during|of|for|since|after|before|from)\s+(?:{_MONTHS}\s+)?{_YEAR}\b", " ", self.text)
        tests = [(r"\bbetween\s+(\d+(?:\.\d+)?)\s+and\s+(\d+(?:\.\d+)?)", None),
                 (rf"\b(?:at\s+least|no\s+less\s+than|(?:{_GREATER})\s+or\s+equal\s+to)\s+(\d+(?:\.\d+)?)", ">="),
                 (rf"\b(?:at\s+most|no\s+more\s+than|(?:{_LESS})\s+or\s+equal\s+to)\s+(\d+(?:\.\d+)?)", "<="),
                 (rf"\b(?:{_GREATER})\s+(\d+(?:\.\d+)?)", ">"), (rf"\b(?:{_LESS})\s+(\d+(?:\.\d+)?)", "<"),
                 (r"\b(?:exactly|aged|age\s+of|age)\s+(\d+(?:\.\d+)?)|\b(\d+(?:\.\d+)?)\s+years?\s+old\b", "=")]
        found: list[dict[str, Any]] = []
        for pattern, op in tests:
            for match in re.finditer(pattern, text):
                column = self.number_column(table)
                if column is None:
                    raise LookupError("which number column?")
                name = self.reachable_name(table, column)
                if op is None:
                    found += [{"column": name, "op": ">=", "value": _number(match[1])},
                              {"column": name, "op": "<=", "value": _number(match[2])}]
                else:
                    found.append({"column": name, "op": op, "value": _number(match[1] or match[2])})
                text = text[:match.start()] + " " * (match.end() - match.start()) + text[match.end():]
        return found

    def _date_filters(self, table: Table) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = []
        month = re.search(rf"\b({_MONTHS})\b(?:\s+(?:of\s+)?{_YEAR})?", self.text)
        year = re.search(rf"\b(in|during|of|for|since|after|before|from|year)?\s*{_YEAR}\b", self.text)
        if not month and not year:
            return found
        column = self.date_column(table)
        if column is None:
            raise LookupError("which date column?")
        name = self.reachable_name(table, column)
        if year:
            word, number = year[1], int(year[2])
            if word == "after":
                found.append({"column": name, "op": ">", "value": f"{number}-12-31"})
            elif word == "before":
                found.append({"column": name, "op": "<", "value": f"{number}-01-01"})
            elif word == "since":
                found.append({"column": name, "op": ">=", "value": f"{number}-01-01"})
            else:
                found.append({"column": name, "op": "year", "value": number})
        if month:
            found.append({"column": name, "op": "month", "value": _MONTH_NUMBER[month[1]]})
        return found

    # -- the question's form --------------------------------------------------------------
    def build(self) -> dict[str, Any] | None:
        forms = (self._group_superlative, self._row_superlative, self._count, self._aggregate)
        for form in forms:
            query = form()
            if query is not None:
                return query
        return None

    def _count(self) -> dict[str, Any] | None:
        if not _COUNT.search(self.text) or re.search(r"\b(?:average|mean|avg)\s+(?:number|count|amount)\s+of\b",
                                                      self.text):
            return None
        counted, distinct = self.counted()
        if distinct and counted is None:
            return None
        filtered = {column.name for column, _ in self.values}
        if any(c.kind == "text" and c.choices and c.name not in filtered for c in self.mentioned("text")):
            return None  # "how many users live in my city": which value is meant, the question does not say
        table = self.main_table(counted)
        for column, _ in self.values:
            owner = self.catalog.table(column.table)
            if owner is None or owner is table or owner in self.catalog.joinable(table):
                continue
            if table not in self.catalog.joinable(owner):
                raise LookupError(f"{owner.name} and {table.name} are not joined")
            # "how many users made a purchase": the keys of the rows that hold the value
            key = next(own for own, (other, _) in owner.references.items() if other == table.name)
            return {"table": owner.name, "select": "count_distinct", "column": key, "filters": self.filters(owner)}
        return {"table": table.name, "select": "count", "column": "*", "filters": self.filters(table)}

    def _aggregate(self) -> dict[str, Any] | None:
        words = [(r"\b(?:average|mean|avg)\b", "avg", None), (r"\b(?:sum|total)\b", "sum", None),
                 (r"\b(?:maximum|max|highest|largest|biggest|oldest|greatest)\b", "max", "number"),
                 (r"\b(?:minimum|min|lowest|smallest|youngest|least)\b", "min", "number"),
                 (r"\b(?:most\s+recent|latest|newest|last)\b", "max", "date"),
                 (r"\b(?:earliest|first|oldest)\b", "min", "date")]
        text = self.text
        for column in self.reader.columns:  # "last" in "last login" names a column, not the maximum
            text = re.sub(r"\b" + r"[\s_]+".join(map(re.escape, _words(column.name))) + r"\b", column.name, text)
        for pattern, select, kind in words:
            if not re.search(pattern, text):
                continue
            columns = self.mentioned(kind) if kind else [c for c in self.mentioned() if c.kind == "number"]
            columns = [c for c in columns if not c.name.endswith("id")]
            if not columns:
                continue
            column = columns[0]
            owner = self.catalog.table(column.table)
            assert owner is not None
            return {"table": owner.name, "select": select, "column": column.name, "filters": self.filters(owner)}
        return None

    def _row_superlative(self) -> dict[str, Any] | None:
        """"who is the oldest user", "the email of the youngest user": one row, ordered."""
        match = re.search(r"\b(oldest|youngest|most\s+recent|latest|newest|earliest)\s+([a-z_]+)", self.text)
        if match is None or self.table_named(match[2]) is None or re.search(r"\bwhen\b", self.text):
            return None  # "when did the most recent user sign up" asks for the date: an aggregate
        table = self.table_named(match[2])
        assert table is not None
        shown = [c for c in self.mentioned("text") if c.table == table.name]
        shown = shown or [c for c in table.columns if c.unique and c.kind == "text"]
        kind = "number" if match[1] in ("oldest", "youngest") else "date"
        order_column = (self.number_column(table) if kind == "number" else self.date_column(table))
        if not shown or order_column is None:
            return None
        order = "desc" if match[1] in ("oldest", "most recent", "latest", "newest") else "asc"
        if kind == "number" and match[1] == "youngest":
            order = "asc"
        return {"table": table.name, "select": "value", "column": shown[0].name, "filters": self.filters(table),
                "order": order, "order_by": self.reachable_name(table, order_column), "limit": 1}

    def _group_superlative(self) -> dict[str, Any] | None:
        """"which city has the most users", "the most common activity type", "which location
        has the highest average age": grouped, ordered, one row."""
        most = re.search(r"\b(?:(most|least|fewest|highest|lowest)\s+(common|popular|frequent|average|mean|avg)?|"
                         r"(most|fewest|least)\b)", self.text)
        asks = re.search(r"\b(?:which|what)\b", self.text)
        if most is None or asks is None:
            return None
        grouped = [c for c in self.mentioned("text") if not c.unique]
        if not grouped:
            return None
        column = grouped[0]
        table = self.catalog.table(column.table)
        assert table is not None
        word = most[1] or most[3]
        order = "desc" if word in ("most", "highest") else "asc"
        if most[2] in ("average", "mean", "avg"):
            numbers = [c for c in self.mentioned("number") if not c.name.endswith("id")]
            if not numbers:
                return None
            select, target = "avg", self.reachable_name(table, numbers[0])
        else:
            select, target = "count", "*"
        filters = [f for f in self.filters(table) if f["column"] != column.name]
        return {"table": table.name, "select": select, "column": target, "filters": filters,
                "group_by": column.name, "order": order, "limit": 1}


def _number(text: str) -> int | float:
    value = float(text)
    return int(value) if value.is_integer() else value
