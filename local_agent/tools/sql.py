"""`sql_schema` and `sql_query`: read-only SQL over the SQLite file the user names.

`sql_query` takes a structured query (sql_builder.py) whose names and values are enums read
from the database when the tool is built (sql_catalog.py); the program writes the SQL.
SqlDatabase.query still runs one statement of SQL text, under the same read-only guards."""

from __future__ import annotations

import functools
import re
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..errors import ToolError
from ..reading.rounding import read_rounding
from .base import Tool, object_schema
from .coverage import sql_left_out
from .sql_builder import explain, query_schema, to_sql
from .sql_catalog import Catalog, read_catalog
from .sql_reader import SqlReader
from .sql_ties import covered
from .sqlite_ro import READ_PRAGMAS, read_only
from .text import clean, cut

READING_STATEMENTS = frozenset({"SELECT", "WITH", "VALUES", "PRAGMA", "EXPLAIN"})  # the authorizer decides the rest
ALLOWED = ("one SELECT, WITH, VALUES or EXPLAIN statement that reads, or PRAGMA "
           + ", ".join(sorted(READ_PRAGMAS)) + " (read, never set)")
_PRAGMA_FUNCTION = re.compile(r"\bpragma_(\w+)\s*\(", re.I)
TIED = "(tied: another row has the same value, so this one is not the only answer)"
MAX_QUERY_CHARS = 1000
MAX_ROWS = 50
MAX_CELL_CHARS = 200
MAX_RESULT_CHARS = 4000
SCHEMA_DESCRIPTION = "List the tables of the user's SQLite database with their columns and row counts."
QUERY_DESCRIPTION = ("Query the user's database: fill table, select (count, count_distinct, avg, sum, min, max, "
                     "value, share: the percentage of rows where part holds, or per: rows per row of the table per), "
                     "column, and if needed filters, part, without (rows with no row in a table that refers to them), "
                     "group_by, order, order_by, then_by (breaks a tie), limit and round (decimal places); returns "
                     f"the rows (at most {MAX_ROWS}). The database:\n")


def cell(value: Any) -> str:
    """One value as short, single-line text."""
    if value is None:
        return "NULL"
    if isinstance(value, bytes):
        return f"<{len(value)} bytes>"
    text = " ".join(clean(str(value)).split()) if isinstance(value, str) else str(value)
    return text if len(text) <= MAX_CELL_CHARS else text[: MAX_CELL_CHARS - 3] + "..."


def _interpret(exc: sqlite3.Error | sqlite3.Warning, time_limit: float) -> ToolError:
    message = str(exc)
    if message == "interrupted":
        return ToolError(f"the query ran longer than {time_limit:g} s and was stopped")
    if "not authorized" in message or "prohibited" in message:
        return ToolError(f"refused: only reading is allowed ({message}): {ALLOWED}")
    return ToolError(f"SQLite error: {message}")


class SqlDatabase:
    """Both tools over one database file; a connection per call, opened read-only."""

    def __init__(self, file: Path, time_limit: float = 5.0, max_rows: int = MAX_ROWS,
                 max_chars: int = MAX_RESULT_CHARS) -> None:
        self.file = Path(file)
        self.time_limit = time_limit
        self.max_rows = max_rows
        self.max_chars = max_chars
        self._running: set[threading.Event] = set()
        self._lock = threading.Lock()

    def cancel(self) -> None:
        """Stop every statement still running (their callers gave up waiting)."""
        with self._lock:
            for stop in self._running:
                stop.set()

    @contextmanager
    def _connection(self) -> Iterator[sqlite3.Connection]:
        stop = threading.Event()
        with self._lock:
            self._running.add(stop)
        try:
            with read_only(self.file, self.time_limit, stop) as connection:
                yield connection
        finally:
            with self._lock:
                self._running.discard(stop)

    def schema(self) -> str:
        with self._connection() as connection:
            try:
                return cut("\n".join(self._describe(connection)) or "The database has no tables.", self.max_chars)
            except sqlite3.Error as exc:
                raise _interpret(exc, self.time_limit) from None

    def query(self, query: str) -> str:
        first = re.match(r"\s*(\w+)", query)
        if first is None or first[1].upper() not in READING_STATEMENTS:
            raise ToolError(f"refused: only reading is allowed: {ALLOWED}")
        if function := _PRAGMA_FUNCTION.search(query):
            raise ToolError(f"refused: the pragma functions such as pragma_{function[1].lower()}(...) are not "
                            f"allowed; write PRAGMA table_info(name) and the like instead ({ALLOWED})")
        return self.run(query)

    def run(self, sql: str, parameters: Sequence[Any] = ()) -> str:
        """The rows of one statement (the authorizer still allows only reading), as text."""
        header, rows = self.rows(sql, parameters, self.max_rows + 1)
        return cut(self._table(header, rows), self.max_chars)

    def rows(self, sql: str, parameters: Sequence[Any] = (), most: int = MAX_ROWS) -> tuple[list[str], list[Any]]:
        """The header and at most `most` rows of one statement (read only)."""
        with self._connection() as connection:
            try:
                cursor = connection.execute(sql, tuple(parameters))
                rows = cursor.fetchmany(most)
            except (sqlite3.Error, sqlite3.Warning) as exc:
                raise _interpret(exc, self.time_limit) from None
            return [column[0] for column in cursor.description or ()], rows

    def _describe(self, connection: sqlite3.Connection) -> list[str]:
        tables = connection.execute(
            "SELECT name, type FROM sqlite_master WHERE type IN ('table', 'view') "
            "AND name NOT LIKE 'sqlite_%' ORDER BY name").fetchall()
        lines = []
        for name, kind in tables:
            quoted = '"' + name.replace('"', '""') + '"'
            columns = ", ".join(f"{column[1]} {column[2]}".strip()
                                for column in connection.execute(f"PRAGMA table_info({quoted})"))
            count = connection.execute(f"SELECT count(*) FROM {quoted}").fetchone()[0]
            lines.append(f"{cell(name)}({cell(columns)}){' view' if kind == 'view' else ''}: {count} rows")
        return lines

    def _table(self, header: list[str], rows: list[tuple[Any, ...]]) -> str:
        if not header:
            return "The statement returned nothing."
        shown = rows[: self.max_rows]
        lines = [" | ".join(cell(name) for name in header)]
        lines += [" | ".join(cell(value) for value in row) for row in shown]
        more = len(rows) > self.max_rows
        lines.append(f"({len(shown)} rows{'; more rows exist, not shown' if more else ''})")
        return "\n".join(lines)


class StructuredQuery:
    """The sql_query tool's function: a structured query, written as SQL and run."""

    def __init__(self, database: SqlDatabase, catalog: Catalog) -> None:
        self.database = database
        self.catalog = catalog
        self.reader = SqlReader(catalog)

    def __call__(self, **query: Any) -> str:
        sql, parameters = to_sql(self.catalog, query)
        result = self.database.run(sql, parameters)
        return f"{result}\n{TIED}" if self._tied(query) else result

    def _tied(self, query: dict[str, Any]) -> bool:
        """Whether the one row of a "the most / the oldest" query shares its place with another
        (then the row shown is one of several, not the answer); a tie-break settles it."""
        if query.get("limit") != 1 or not query.get("order") or query.get("then_by"):
            return False
        probe = {**query, "limit": 2}
        if not query.get("group_by") and query.get("order_by"):
            probe |= {"select": "value", "column": query["order_by"]}
        _, rows = self.database.rows(*to_sql(self.catalog, probe), 2)
        return len(rows) == 2 and rows[0][-1] == rows[1][-1]


def make_sql_schema(file: Path, time_limit: float = 5.0) -> Tool:
    return Tool("sql_schema", SCHEMA_DESCRIPTION, object_schema({}), SqlDatabase(file, time_limit).schema)


def make_sql_query(file: Path, time_limit: float = 5.0, max_rows: int = MAX_ROWS) -> Tool:
    """The structured query tool over `file`, its enums read from the database now."""
    database = SqlDatabase(file, time_limit, max_rows)
    try:
        catalog = read_catalog(file, time_limit)
    except sqlite3.Error as exc:
        raise _interpret(exc, time_limit) from None
    function = StructuredQuery(database, catalog)
    return Tool("sql_query", QUERY_DESCRIPTION + catalog.describe(), query_schema(catalog), function,
                cancel=database.cancel, reader=function.reader.read, asks=function.reader.asks_for_data,
                explain=functools.partial(explain, catalog))


def left_out(tool: Tool, message: str, query: dict[str, Any]) -> str | None:
    """What of `message` the structured query `query` of the tool `tool` leaves out (coverage.py's
    parts, then the words its reader cannot place), or None; a rounding instruction the query
    follows is covered."""
    if not isinstance(tool.function, StructuredQuery) or (written := written_sql(tool, query)) is None:
        return None
    rounding = read_rounding(message)
    if rounding is not None and ("round" in query or query.get("select") in ("count", "count_distinct")):
        message = rounding.masked(message)  # the places asked for are the query's, or a count has none
    message = covered(message, written[0])
    part = sql_left_out(message, *written)
    if part is None and (word := tool.function.reader.unread(message, *written)):
        part = f"the word {word}"
    return part


def written_sql(tool: Tool, query: dict[str, Any]) -> tuple[str, list[Any]] | None:
    """The SQL and parameters that the structured query tool `tool` writes for `query`, or
    None for another tool or a query it cannot write."""
    if not isinstance(tool.function, StructuredQuery):
        return None
    try:
        return to_sql(tool.function.catalog, query)
    except ToolError:
        return None
