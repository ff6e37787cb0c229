"""The structured query: a JSON object whose fields are enums taken from the database (its
tables, columns and the values of columns with few of them), and the SQL the program writes
from it. The model (or a rule) fills the object; it never writes SQL, so what runs is always
well-formed, names only what exists, and passes its literals as parameters.

    {"table": "users", "select": "count", "column": "*",
     "filters": [{"column": "location", "op": "=", "value": "Lisbon"},
                 {"column": "signup_date", "op": "year", "value": 2023}],
     "group_by": "job_industry", "order": "desc", "order_by": "age", "limit": 1}

- select: count, count_distinct, avg, sum, min, max of `column`, or `value` (the column itself);
- filters (at most three, all must hold): on a number, = != > >= < <=; on a text column with
  few values, = or != one of them, or `in` a list of them; on other text, = != or `like` (contains); on a date, `year`
  or `month` (a number) or = > >= < <= a date (YYYY, YYYY-MM or YYYY-MM-DD);
- a filter, group_by or order_by may name a column of a table the query's table reaches by
  one foreign key (`users.location` from user_activity): the program adds the join;
- group_by: one row per value, with the aggregate; order then sorts by the aggregate;
- order (asc, desc) sorts by order_by, or by the selected column; limit keeps the first rows;
- select share: the percentage of the rows (those the filters keep) for which all of `part`
  holds (filters of the same form);
- then_by, then_order: the second sort key, which breaks a tie of the first ("the alphabetically first");
- select per: the rows per row of the table `per` that this one refers to, over all of its rows
  (`per_rows` all, the default) or over those with at least one row here (with_any);
- round: the decimal places of an avg, sum or share (avg and share: 2 when not given);
- without: the rows with no row in a table that refers to this one (`{"table": ..., "filters":
  [...]}`, filters on that table's own columns), written as NOT EXISTS: "users with no
  activity in 2024".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import ToolError
from .sql_catalog import Catalog, Column, Table

AGGREGATES = ("count", "count_distinct", "avg", "sum", "min", "max", "value", "share", "per")
MAX_FILTERS = 3
MAX_LIMIT = 50
MAX_PLACES = 6  # the most decimal places `round` asks for
DATE_PATTERN = r"^[0-9]{4}(-[0-9]{2}(-[0-9]{2})?)?$"
TEXT_PATTERN = r"^[^\"\\\x00-\x1f%_]{1,60}$"
_COMPARE = ["=", "!=", ">", ">=", "<", "<="]


def _enum(values: list[str]) -> dict[str, Any]:
    return {"type": "string", "enum": values}


def _reachable(catalog: Catalog, table: Table) -> list[Column]:
    """The columns a query on `table` may filter, group or order by: its own, then those of
    the tables its foreign keys reach (qualified)."""
    return [*table.columns, *(column for target in catalog.joinable(table) for column in target.columns)]


def _name(table: Table, column: Column) -> str:
    return column.name if column.table == table.name else column.qualified


def _filter_options(table: Table, column: Column) -> list[dict[str, Any]]:
    name = _enum([_name(table, column)])
    options: list[tuple[list[str], dict[str, Any]]]
    if column.kind == "number":
        options = [(_COMPARE, {"type": "number"})]
    elif column.kind == "date":
        options = [(["year"], {"type": "integer", "minimum": 1, "maximum": 9999}),
                   (["month"], {"type": "integer", "minimum": 1, "maximum": 12}),
                   (_COMPARE, {"type": "string", "pattern": DATE_PATTERN, "maxLength": 10})]
    elif column.choices:
        options = [(["=", "!="], _enum(list(column.choices))),
                   (["in"], {"type": "array", "items": _enum(list(column.choices)), "minItems": 2, "maxItems": 10})]
    else:
        options = [(["=", "!=", "like"], {"type": "string", "pattern": TEXT_PATTERN, "maxLength": 60})]
    return [{"type": "object", "properties": {"column": name, "op": _enum(ops), "value": value},
             "required": ["column", "op", "value"], "additionalProperties": False} for ops, value in options]


def referring(catalog: Catalog, table: Table) -> list[Table]:
    """The tables with a foreign key to `table` (those a `without` may name)."""
    return [other for other in catalog.tables
            if other is not table and any(target == table.name for target, _ in other.references.values())]


def table_schema(catalog: Catalog, table: Table) -> dict[str, Any]:
    reachable = [_name(table, column) for column in _reachable(catalog, table)]
    filters = [option for column in _reachable(catalog, table) for option in _filter_options(table, column)]
    listed = {"type": "array", "items": {"anyOf": filters}, "maxItems": MAX_FILTERS}
    properties = {
        "table": _enum([table.name]),
        "select": _enum(list(AGGREGATES)),
        "column": _enum(["*", *(column.name for column in table.columns)]),
        "filters": listed,
        "part": listed,
        "group_by": _enum(reachable),
        "order": _enum(["asc", "desc"]),
        "order_by": _enum(reachable),
        "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT},
        "round": {"type": "integer", "minimum": 0, "maximum": MAX_PLACES},
        "per": _enum([target.name for target in catalog.joinable(table)] or ["(none)"]),
        "per_rows": _enum(["all", "with_any"]),
        "then_by": _enum(reachable),
        "then_order": _enum(["asc", "desc"]),
    }
    if others := referring(catalog, table):
        properties["without"] = {"anyOf": [_without_schema(other) for other in others]}
    return {"type": "object", "properties": properties, "required": ["table", "select", "column"],
            "additionalProperties": False}


def _without_schema(other: Table) -> dict[str, Any]:
    filters = [option for column in other.columns for option in _filter_options(other, column)]
    return {"type": "object", "properties": {"table": _enum([other.name]), "filters": {
        "type": "array", "items": {"anyOf": filters}, "maxItems": MAX_FILTERS}},
        "required": ["table"], "additionalProperties": False}


def query_schema(catalog: Catalog) -> dict[str, Any]:
    """The JSON schema of a structured query on `catalog`: one option per table."""
    options = [table_schema(catalog, table) for table in catalog.tables]
    if not options:
        return {"type": "object", "properties": {"table": _enum(["(no tables)"])}, "required": ["table"],
                "additionalProperties": False}
    return options[0] if len(options) == 1 else {"anyOf": options}


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


class _Writer:
    """The SQL of one query: its table, the join it needs, and its parameters."""

    def __init__(self, catalog: Catalog, query: dict[str, Any]) -> None:
        table = catalog.table(str(query.get("table", "")))
        if table is None:
            raise ToolError(f"no table {query.get('table')!r} in the database")
        self.catalog, self.table, self.query = catalog, table, query
        self.joined: dict[str, str] = {}  # table -> the join clause
        self.parameters: list[Any] = []

    def column(self, name: str) -> str:
        """A reachable column as SQL; the join it needs is noted."""
        table_name, _, column_name = name.rpartition(".")
        if not table_name or table_name == self.table.name:
            if self.table.column(column_name) is None:
                raise ToolError(f"no column {name!r} in {self.table.name}")
            return f"{_quoted(self.table.name)}.{_quoted(column_name)}"
        target = self.catalog.table(table_name)
        if target is None or target not in self.catalog.joinable(self.table) or target.column(column_name) is None:
            raise ToolError(f"no column {name!r} reachable from {self.table.name}")
        key = next(own for own, (other, _) in self.table.references.items() if other == target.name)
        self.joined[target.name] = (f" JOIN {_quoted(target.name)} ON {_quoted(self.table.name)}.{_quoted(key)} = "
                                    f"{_quoted(target.name)}.{_quoted(self.table.references[key][1])}")
        return f"{_quoted(target.name)}.{_quoted(column_name)}"

    def selected(self) -> str:
        """The selected expression, named as the query names it (avg(age), count(*))."""
        select, name = self.query["select"], self.query["column"]
        if name == "*":
            if select == "share":
                return self.share()
            if select == "per":
                return self.per()
            if select not in ("count", "value"):
                raise ToolError(f"{select} needs a column, not *")
            return "count(*)" if select == "count" else "*"
        column = self.column(name)
        if select == "value":
            return column
        if select == "share":
            raise ToolError("share counts rows: its column is *")
        expression = {"count": f"count({column})", "count_distinct": f"count(DISTINCT {column})",
                      "avg": self.rounded(f"avg({column})", 2), "sum": self.rounded(f"sum({column})", None),
                      "min": f"min({column})", "max": f"max({column})"}[select]
        return f"{expression} AS {_quoted(f'{select}({name})')}"

    def condition(self, item: dict[str, Any]) -> str:
        column, op, value = self.column(str(item["column"])), item["op"], item["value"]
        if op in ("year", "month"):
            self.parameters.append(f"{int(value):04d}" if op == "year" else f"{int(value):02d}")
            return f"strftime('{'%Y' if op == 'year' else '%m'}', {column}) = ?"
        if op == "in":
            if not isinstance(value, list) or not 2 <= len(value) <= 10:
                raise ToolError("in takes a list of 2 to 10 values")
            self.parameters += value
            return f"{column} IN ({', '.join('?' * len(value))})"
        if op == "like":
            self.parameters.append(f"%{value}%")
            return f"{column} LIKE ? ESCAPE '\\'"
        if op not in _COMPARE:
            raise ToolError(f"unknown filter op {op!r}")
        self.parameters.append(value)
        return f"{column} {op} ?"

    def share(self) -> str:
        """The percentage of the rows for which every condition of `part` holds."""
        part = [self.condition(item) for item in self.query.get("part", [])]
        if not part:
            raise ToolError("share needs part: the conditions of the rows it is the share of")
        share = f"100.0 * sum(CASE WHEN {' AND '.join(part)} THEN 1 ELSE 0 END) / count(*)"
        return f"{self.rounded(share, 2)} AS \"share(%)\""

    def per(self) -> str:
        """The rows of the table per row of the table it refers to (`per`): over all of those
        (`per_rows` all: the ones with none count as 0) or over those with at least one."""
        target = self.catalog.table(str(self.query.get("per", "")))
        if target is None or target not in self.catalog.joinable(self.table):
            raise ToolError(f"per needs a table that {self.table.name} refers to")
        key = next(own for own, (other, _) in self.table.references.items() if other == target.name)
        rows = self.query.get("per_rows", "all")
        if rows not in ("all", "with_any"):
            raise ToolError(f"per_rows is all or with_any, not {rows!r}")
        over = (f"(SELECT count(*) FROM {_quoted(target.name)})" if rows == "all"
                else f"count(DISTINCT {_quoted(self.table.name)}.{_quoted(key)})")
        return f"{self.rounded(f'1.0 * count(*) / {over}', 2)} AS {_quoted(f'per({target.name})')}"

    def rounded(self, expression: str, default: int | None) -> str:
        """`expression` rounded to the query's `round` places (else `default`, None: as it is);
        no places at all is a whole number (SQLite's round gives 47.0)."""
        places = self.query.get("round", default)
        if places is None:
            return expression
        if not isinstance(places, int) or not 0 <= places <= MAX_PLACES:
            raise ToolError(f"round takes 0 to {MAX_PLACES} decimal places")
        return f"CAST(round({expression}) AS INTEGER)" if places == 0 else f"round({expression}, {places})"

    def without(self) -> str:
        """NOT EXISTS over the rows of a referring table that point to this row (and pass its filters)."""
        spec = self.query["without"]
        other = self.catalog.table(str(spec.get("table", ""))) if isinstance(spec, dict) else None
        if other is None or other not in referring(self.catalog, self.table):
            raise ToolError(f"without needs a table that refers to {self.table.name}")
        inner = _Writer(self.catalog, {"table": other.name})
        key = next(own for own, (target, _) in other.references.items() if target == self.table.name)
        link = (f"{_quoted(other.name)}.{_quoted(key)} = "
                f"{_quoted(self.table.name)}.{_quoted(other.references[key][1])}")
        conditions = [link, *(inner.condition(item) for item in spec.get("filters", []))]
        if inner.joined or any("." in str(item.get("column", "")) for item in spec.get("filters", [])):
            raise ToolError("without's filters name only its own table's columns")
        self.parameters += inner.parameters
        return f"NOT EXISTS (SELECT 1 FROM {_quoted(other.name)} WHERE {' AND '.join(conditions)})"

    def then(self) -> str:
        """The second sort key that breaks a tie (`then_by`, `then_order`), as SQL after a comma."""
        by = self.query.get("then_by")
        if not by:
            return ""
        order = str(self.query.get("then_order", "asc"))
        if order not in ("asc", "desc"):
            raise ToolError(f"then_order is asc or desc, not {order!r}")
        return f", {self.column(str(by))} {order.upper()}"

    def sql(self) -> str:
        selected = self.selected()
        where = [self.condition(item) for item in self.query.get("filters", [])]
        if self.query.get("without"):
            where.append(self.without())
        group = self.query.get("group_by")
        grouped = self.column(group) if group else ""
        order = self.query.get("order")
        by = self.query.get("order_by")
        sort = self.column(by) if by else (selected.split(" AS ")[0] if selected != "*" else "")
        head = f"SELECT {grouped + ', ' if grouped else ''}{selected} FROM {_quoted(self.table.name)}"
        text = head + "".join(self.joined.values())
        text += f" WHERE {' AND '.join(where)}" if where else ""
        text += f" GROUP BY {grouped}" if grouped else ""
        text += f" ORDER BY {sort} {order.upper()}{self.then()}" if order and sort else ""
        limit = self.query.get("limit")
        return text + (f" LIMIT {int(limit)}" if limit else "")


def to_sql(catalog: Catalog, query: dict[str, Any]) -> tuple[str, list[Any]]:
    """The SQL of a structured query and its parameters; ToolError for a name or a
    combination the database does not have."""
    writer = _Writer(catalog, query)
    return writer.sql(), writer.parameters


def explain(catalog: Catalog, query: Mapping[str, Any]) -> str | None:
    """Why a query does not fit the database, in its terms: a table, a column or a value it
    does not hold (the JSON schema's own message for a failed option is only "not valid under
    any of the given schemas")."""
    table = catalog.table(str(query.get("table", "")))
    if table is None:
        names = ", ".join(t.name for t in catalog.tables)
        return f"the database has no table {query.get('table')!r} (its tables: {names})"
    reachable = {_name(table, column): column for column in _reachable(catalog, table)}
    for item in query.get("filters", []) if isinstance(query.get("filters"), list) else []:
        column = reachable.get(str(item.get("column"))) if isinstance(item, dict) else None
        if isinstance(item, dict) and column is not None and column.choices and item.get("value") not in column.choices:
            return (f"{item.get('value')!r} is not a {column.name} in the database (its {column.name} values: "
                    f"{', '.join(column.choices)})")
    return None
