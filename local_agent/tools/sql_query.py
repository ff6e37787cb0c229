"""One question about a database read against its catalog (sql_reader.py reads the question's
text and values first): the columns and tables it names, its filters, and the form of its query
(a count, an aggregate, the row of a superlative, a grouped superlative)."""

from __future__ import annotations

import re
from typing import Any

from .sql_catalog import Catalog, Column, Table
from .sql_dates import MONTHS, YEAR, YEARS_BETWEEN, date_filters

# Common words for what a column means, by a word its name holds.
MEANINGS = {
    "age": r"old|older|oldest|young|younger|youngest|aged?",
    "location": r"city|cities|town|towns|place|places|live|lives|living|based|where",
    "city": r"city|cities|town|towns|live|lives|living|based|where",
    "industry": r"work|works|working|job|jobs|sector|sectors|field|profession",
    "job": r"work|works|working|job|jobs|profession|occupation",
    "email": r"e-?mails?|address",
    "signup": r"joined|join|joins|registered|registration",
}
PEOPLE = r"people|persons|folks|members|customers|accounts"
COUNT = re.compile(r"\b(?:how\s+many|number\s+of|count(?:\s+of)?|total\s+number\s+of|total)\s+"
                   r"(?:of\s+(?:our|the|all|these|those|my)\s+)?(?:(distinct|different|unique)\s+)?([a-z_]+)")
_GREATER = r"older\s+than|more\s+than|greater\s+than|over|above|bigger\s+than|higher\s+than|after"
_LESS = r"younger\s+than|less\s+than|fewer\s+than|under|below|lower\s+than|smaller\s+than|before"
_YEAR = YEAR
_NEGATION = re.compile(r"\b(?:not|no|never|without|except|excluding|outside|dont|doesnt|didnt|isnt|arent|"
                       r"other\s+than|apart\s+from)\b|n't\b")
_DECADES = {"teens": (13, 19)} | {word: (10 * n, 10 * n + 9) for n, word in enumerate(
    ("twenties", "thirties", "forties", "fifties", "sixties", "seventies", "eighties", "nineties"), 2)}



def name_words(name: str) -> list[str]:
    """The lowercase words of a table, column or value name."""
    return [word for word in re.split(r"[_\W]+", name.lower()) if word]


def form_of(word: str, known: str) -> bool:
    """Whether `word` is `known` or its plural ("activities", "uploads")."""
    return word == known or word in (known + "s", known + "es", known[:-1] + "ies")


def stem_of(word: str, known: str) -> bool:
    """Whether `word` is `known`, its plural or another form of it ("purchased", "posting")."""
    return form_of(word, known) or (len(known) >= 4 and word.startswith(known) and len(word) - len(known) <= 3)


_TIME_UNIT = re.compile(r"(?:second|minute|hour|day|week|fortnight|month|year|decade)s?")
_OR_BOUND = r"\b(\d+(?:\.\d+)?)\s+(?:years?\s+(?:old\s+)?)?(?:or|and)\s+"  # "50 or older", "30 and over": kept


def verb_forms(word: str) -> str:
    """A pattern for a one-word value's past and -ing forms, when it has them ("commented",
    "purchased", "posting"); a short word ("log") has none (a pattern that matches nothing)."""
    if len(word) < 4 or not word.isalpha():
        return "(?!)"
    stem = re.escape(word[:-1] if word.endswith("e") else word)
    return rf"{stem}(?:ed|ing)"


def word_forms(word: str) -> str:
    """A pattern for a word and its plural (activity, activities; user, users)."""
    stem = re.escape(word)
    if word.endswith("y") and len(word) > 2 and word[-2] not in "aeiou":
        return rf"{stem}|{re.escape(word[:-1])}ies"
    return rf"{stem}(?:s|es)?" if not word.endswith("s") else rf"{stem}|{re.escape(word[:-1])}"





class SqlQuestion:
    """One question's reading."""

    def __init__(self, catalog: Catalog, columns: list[Column], text: str, values: list[tuple[Column, str]]) -> None:
        self.catalog, self.columns, self.text, self.values = catalog, columns, text, values

    # -- columns and tables -------------------------------------------------------------
    def mentioned(self, kind: str | None = None, by_meaning: bool = True) -> list[Column]:
        """Columns the question names, by name or (`by_meaning`) by meaning, in order."""
        found: list[tuple[int, Column]] = []
        for column in self.columns:
            if kind and column.kind != kind:
                continue
            words = name_words(column.name)
            patterns = [r"[\s_]+".join(map(re.escape, words))]
            patterns += [MEANINGS[word] for word in words if word in MEANINGS and by_meaning]
            patterns += [re.escape(word) for word in words if word not in ("id", "date", "type", "last", "name")
                         and sum(word in name_words(c.name) for c in self.columns) == 1
                         and not any(word == v.lower() for c in self.columns for v in c.choices)]
            match = re.search(r"\b(?:" + "|".join(f"(?:{p})" for p in patterns) + r")\b", self.text)
            if match:
                found.append((match.start(), column))
        return [column for _, column in sorted(found, key=lambda item: item[0])]

    def table_named(self, word: str, strong: bool = False) -> Table | None:
        """The table a word names: its name or last word ("activities"), or, unless `strong`,
        "people" and the like for a table of users, persons or customers when the question
        also names one of its columns or values (chat says "people" all the time)."""
        for table in self.catalog.tables:
            words = name_words(table.name)
            if re.fullmatch(rf"(?:{word_forms(words[-1])}|{word_forms(table.name)})", word):
                return table
        if not strong and re.fullmatch(PEOPLE, word) and (self.values or self.mentioned(by_meaning=False)):
            return next((t for t in self.catalog.tables  # users, not user_activity: the table the rows are people of
                         if re.search(r"user|person|people|customer|member", name_words(t.name)[-1])), None)
        return None

    def counted(self) -> tuple[Table | None, bool]:
        """The table whose rows a count counts, and whether it asks for distinct ones."""
        match = COUNT.search(self.text)
        if match is None:
            return None, False
        noun = match[2]
        table = self.table_named(noun)
        if table is None:
            value = next((c for c, v in self.values if re.fullmatch(word_forms(v.lower()), noun)), None)
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
        found = self._value_filters(table)
        found += self._key_filters(table) + self._number_filters(table) + self._decade_filters(table)
        found += self._date_filters(table)
        return found

    def _value_filters(self, table: Table) -> list[dict[str, Any]]:
        """A value each of its column; two or more of one column are `in` when the question joins
        them with "or" ("in Lisbon or Osaka"); with "and" it may ask for each: not read."""
        by_column: dict[Column, list[str]] = {}
        for column, value in self.values:
            by_column.setdefault(column, []).append(value)
        found: list[dict[str, Any]] = []
        for column, values in by_column.items():
            name = self.reachable_name(table, column)
            negated = [value for value in values if self._negated(value)]
            if negated and len(values) > 1:
                raise LookupError(f"not {' or '.join(values)}: no query form")
            if len(values) == 1:
                found.append({"column": name, "op": "!=" if negated else "=", "value": values[0]})
                continue
            words = "|".join(re.escape(v.lower()) for v in values)
            if not re.search(rf"\b(?:{words})\b(?:\s*,\s*(?:{words}))*,?\s+or\s+(?:{words})\b", self.text):
                raise LookupError(f"{column.name}: {' and '.join(values)} together, or each?")
            found.append({"column": name, "op": "in", "value": values})
        return found

    def _negated(self, value: str) -> bool:
        """Whether the question's one negation stands right before `value` ("not in finance",
        "don't live in Lisbon", "other than Osaka")."""
        if len(_NEGATION.findall(self.text)) != 1:
            return False
        pattern = rf"(?:{_NEGATION.pattern})(?:\s+\w+){{0,3}}?\s+(?:{word_forms(value.lower())})\b"
        return re.search(pattern, self.text) is not None

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

    def _decade_filters(self, table: Table) -> list[dict[str, Any]]:
        """"in their twenties": an age from 20 to 29 (only a column that means an age)."""
        match = re.search(rf"\b(?:in\s+)?(?:their|his|her|the)\s+({'|'.join(_DECADES)})\b", self.text)
        if match is None:
            return []
        column = self.number_column(table)
        if column is None or "age" not in name_words(column.name):
            raise LookupError("a decade of life needs an age column")
        low, high = _DECADES[match[1]]
        name = self.reachable_name(table, column)
        return [{"column": name, "op": ">=", "value": low}, {"column": name, "op": "<=", "value": high}]

    def _number_filters(self, table: Table) -> list[dict[str, Any]]:
        text = re.sub(rf"\b(?:in|during|of|for|since|after|before|from)\s+(?:{MONTHS}\s+)?{_YEAR}\b", " ", self.text)
        text = YEARS_BETWEEN.sub(" ", text)
        tests = [(r"\bbetween\s+(\d+(?:\.\d+)?)\s+and\s+(\d+(?:\.\d+)?)", None),
                 (r"\b(?:aged|ages?|from)\s+(\d+)\s*(?:to|-|through|thru)\s*(\d+)\b(?!\s*(?:%|percent))", None),
                 (_OR_BOUND + r"(?:older|over|more|above|higher|greater)\b", ">="),
                 (_OR_BOUND + r"(?:younger|under|less|below|lower|fewer)\b", "<="),
                 (r"\b(\d+(?:\.\d+)?)\s*\+(?!\s*\d)", ">="),  # "aged 30+"
                 (rf"\b(?:at\s+least|no\s+less\s+than|(?:{_GREATER})\s+or\s+equal\s+to)\s+(\d+(?:\.\d+)?)", ">="),
                 (rf"\b(?:at\s+most|no\s+more\s+than|(?:{_LESS})\s+or\s+equal\s+to)\s+(\d+(?:\.\d+)?)", "<="),
                 (rf"\b(?:{_GREATER})\s+(\d+(?:\.\d+)?)", ">"), (rf"\b(?:{_LESS})\s+(\d+(?:\.\d+)?)", "<"),
                 (r"\b(?:exactly|aged|age\s+of|age)\s+(\d+(?:\.\d+)?)|\b(\d+(?:\.\d+)?)\s+years?\s+old\b", "=")]
        found: list[dict[str, Any]] = []
        for pattern, op in tests:
            for match in re.finditer(pattern, text):
                if self._counts_rows(text[match.end():]):
                    if (op, match[1]) in ((">=", "1"), (">", "0")):  # "at least one post": that there is one
                        text = text[:match.start()] + " " * (match.end() - match.start()) + text[match.end():]
                        continue
                    raise LookupError("a number of rows per row (more than 10 purchases): no query form")
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

    def _counts_rows(self, after: str) -> bool:
        """Whether the word after a number names rows ("10 purchases", "1 activity", "3 times"),
        not the unit of a column."""
        word = re.match(r"\s*['\"]?([a-z_]+)", after)
        if word is None:
            return False
        return word[1] == "times" or self.table_named(word[1], strong=True) is not None or any(
            re.fullmatch(word_forms(value.lower()), word[1]) for column in self.columns for value in column.choices)

    def _date_filters(self, table: Table) -> list[dict[str, Any]]:
        if not re.search(rf"\b(?:{MONTHS}|{_YEAR})\b", self.text):
            return []
        column = self.date_column(table)
        if column is None:
            raise LookupError("which date column?")
        return date_filters(self.text, self.reachable_name(table, column))

    # -- the question's form --------------------------------------------------------------
    def build(self) -> dict[str, Any] | None:
        forms = (self._group_superlative, self._row_superlative, self._count, self._aggregate)
        for form in forms:
            query = form()
            if query is not None:
                return query
        return None

    def _count(self) -> dict[str, Any] | None:
        count = COUNT.search(self.text)
        if count is None or re.search(r"\b(?:average|mean|avg)\s+(?:number|count|amount)\s+of\b", self.text):
            return None
        counted, distinct = self.counted()
        if counted is None and (distinct or _TIME_UNIT.fullmatch(count[2])):
            return None  # "how many days old am I": a span of time, no table's rows
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
        for column in self.columns:  # "last" in "last login" names a column, not the maximum
            text = re.sub(r"\b" + r"[\s_]+".join(map(re.escape, name_words(column.name))) + r"\b", column.name, text)
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
        if re.fullmatch(r"[a-z]+s", match[2]) and self.table_named(match[2][:-1]) is not None:
            return None  # "which city has the oldest users": the oldest one, or the oldest on average?
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
                         r"(most|fewest|least)\b|(youngest|oldest)\s+(?:[a-z_]+\s+on\s+)?(average|mean|avg)\b)",
                         self.text)
        asks = re.search(r"\b(?:which|what)\b", self.text)
        if most is None or asks is None:
            return None
        grouped = [c for c in self.mentioned("text") if not c.unique]
        if not grouped:
            return None
        column = grouped[0]
        table = self.catalog.table(column.table)
        assert table is not None
        word = most[1] or most[3] or most[4]
        order = "desc" if word in ("most", "highest", "oldest") else "asc"
        if (most[2] or most[5]) in ("average", "mean", "avg"):
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
