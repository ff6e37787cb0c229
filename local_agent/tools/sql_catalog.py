"""What a database holds, read once when the SQL tools are built: its tables, their columns
with a kind each (number, text, date), the foreign keys, and for text columns with few
distinct values (at most MAX_CHOICES) those values. The structured query's enums are taken
from it (sql_builder.py), and so are the words the question rules look for (sql_reader.py)."""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from .sqlite_ro import read_only

ColumnKind = Literal["number", "text", "date"]
MAX_CHOICES = 50  # a text column with at most this many distinct values offers them
MAX_CHOICE_CHARS = 60
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}")
SAMPLE_ROWS = 200


@dataclass(frozen=True)
class Column:
    table: str
    name: str
    kind: ColumnKind
    choices: tuple[str, ...] = ()  # its values, for a text column with few of them
    unique: bool = False

    @property
    def qualified(self) -> str:
        return f"{self.table}.{self.name}"


@dataclass(frozen=True)
class Table:
    name: str
    columns: tuple[Column, ...]
    references: dict[str, tuple[str, str]] = field(default_factory=dict)  # column -> (table, column)

    def column(self, name: str) -> Column | None:
        return next((column for column in self.columns if column.name == name), None)


@dataclass(frozen=True)
class Catalog:
    tables: tuple[Table, ...]

    def table(self, name: str) -> Table | None:
        return next((table for table in self.tables if table.name == name), None)

    def joinable(self, table: Table) -> list[Table]:
        """The tables `table` reaches along one of its foreign keys."""
        return [target for name in dict.fromkeys(t for t, _ in table.references.values())
                if (target := self.table(name)) is not None and target is not table]

    def describe(self) -> str:
        """The schema in a few lines, for the model: columns with their kind, foreign keys,
        and the values a text column may take."""
        lines = []
        for table in self.tables:
            columns = ", ".join(f"{c.name} {c.kind}" for c in table.columns)
            lines.append(f"{table.name}({columns})")
            lines += [f"  {table.name}.{name} refers to {target}.{column}"
                      for name, (target, column) in table.references.items()]
            lines += [f"  {c.name} is one of: {', '.join(c.choices)}" for c in table.columns if c.choices]
        return "\n".join(lines)


def _kind(declared: str, sample: list[object]) -> ColumnKind:
    declared = declared.upper()
    if any(word in declared for word in ("INT", "REAL", "FLOA", "DOUB", "NUM", "DEC")):
        return "number"
    values = [value for value in sample if value is not None]
    if values and all(isinstance(value, str) and _DATE.match(value) for value in values):
        return "date"
    if "DATE" in declared or "TIME" in declared:
        return "date"
    return "text"


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _column(connection: sqlite3.Connection, table: str, name: str, declared: str, unique: bool) -> Column:
    sample = [row[0] for row in connection.execute(
        f"SELECT {_quoted(name)} FROM {_quoted(table)} WHERE {_quoted(name)} IS NOT NULL LIMIT {SAMPLE_ROWS}")]
    kind = _kind(declared, sample)
    choices: tuple[str, ...] = ()
    if kind == "text" and not unique:
        values = [row[0] for row in connection.execute(
            f"SELECT DISTINCT {_quoted(name)} FROM {_quoted(table)} WHERE {_quoted(name)} IS NOT NULL "
            f"LIMIT {MAX_CHOICES + 1}")]
        if len(values) <= MAX_CHOICES and all(isinstance(v, str) and 0 < len(v) <= MAX_CHOICE_CHARS for v in values):
            choices = tuple(sorted(values))
    return Column(table, name, kind, choices, unique)


def _unique_columns(connection: sqlite3.Connection, table: str) -> set[str]:
    unique = set()
    for index in connection.execute(f"PRAGMA index_list({_quoted(table)})").fetchall():
        if index[2]:  # unique
            names = [row[2] for row in connection.execute(f"PRAGMA index_info({_quoted(index[1])})")]
            if len(names) == 1:
                unique.add(names[0])
    return unique


def read_catalog(file: Path, time_limit: float = 5.0) -> Catalog:
    """The catalog of the database `file` (read-only)."""
    with read_only(file, time_limit) as connection:
        names = [row[0] for row in connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")]
        tables = []
        for name in names:
            info = connection.execute(f"PRAGMA table_info({_quoted(name)})").fetchall()
            unique = _unique_columns(connection, name) | {row[1] for row in info if row[5] == 1}
            columns = tuple(_column(connection, name, row[1], row[2] or "", row[1] in unique) for row in info)
            references = {row[3]: (row[2], row[4] or "id")
                          for row in connection.execute(f"PRAGMA foreign_key_list({_quoted(name)})")}
            tables.append(Table(name, columns, references))
    return Catalog(tuple(tables))
