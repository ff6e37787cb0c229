"""Markdown cells and tables of the report (report.py and parallel_report.py)."""

from __future__ import annotations

from typing import Any


def num(value: float | None, digits: int = 1) -> str:
    return "–" if value is None else f"{value:,.{digits}f}"


def cell(entry: dict[str, Any] | None, key: str, factor: float = 1.0, digits: int = 1) -> str:
    """'median (min–max)' of spread entry[key], scaled; just the median when n is 1."""
    if not entry or not isinstance(entry.get(key), dict):
        return "–"
    values = entry[key]
    median = num(values["median"] * factor, digits)
    if values["n"] < 2:
        return median
    return f"{median} ({num(values['min'] * factor, digits)}–{num(values['max'] * factor, digits)})"


def table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in rows])
