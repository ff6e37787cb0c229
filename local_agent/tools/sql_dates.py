"""The date conditions of a question about a database (sql_query.py finds the date column):
a year, a month of a year, a part of a year ("the first half of 2022", "the last quarter of
2023"), a range of years ("between 2021 and 2022"), and a side of a year or month ("after June
2022", "before 2021", "since March 2023"). Two years or months it cannot pair are not read."""

from __future__ import annotations

import re
from typing import Any

from ..reading.words import MONTHS as MONTH_NAMES

YEAR = r"(19\d\d|20\d\d)"
MONTH_NUMBER = {name: number for number, name in enumerate(MONTH_NAMES, 1)} | {
    name[:3]: number for number, name in enumerate(MONTH_NAMES, 1)} | {"sept": 9}
MONTHS = "|".join(sorted(MONTH_NUMBER, key=len, reverse=True))
PART_OF_YEAR = re.compile(rf"\b(1st|2nd|3rd|4th|first|second|third|fourth|last)\s+(half|\(1/2\)|quarter|\(1/4\))\s+"
                          rf"of\s+{YEAR}\b")  # question_text.normalize writes "half" as (1/2)
YEARS_BETWEEN = re.compile(rf"\bbetween\s+{YEAR}\s+and\s+{YEAR}\b")
_SIDE_OF_MONTH = re.compile(rf"\b(after|before|since|from)\s+({MONTHS})\s+(?:of\s+)?{YEAR}\b")
_ORDER = {"1st": 1, "first": 1, "2nd": 2, "second": 2, "3rd": 3, "third": 3, "4th": 4, "fourth": 4}


def date_filters(text: str, name: str) -> list[dict[str, Any]]:
    """The conditions on the date column `name` that `text` states; LookupError for dates it
    cannot pair ("between March and May 2022")."""
    if part := PART_OF_YEAR.search(text):
        first, last = _months_of(part)
        return _span(name, int(part[3]), first, int(part[3]), last)
    if years := YEARS_BETWEEN.search(text):
        return _span(name, int(years[1]), 1, int(years[2]), 12)
    if side := _SIDE_OF_MONTH.search(text):
        year, month = int(side[3]), MONTH_NUMBER[side[2]]
        if side[1] == "after":
            year, month = (year + 1, 1) if month == 12 else (year, month + 1)
            return [{"column": name, "op": ">=", "value": f"{year}-{month:02d}-01"}]
        op = "<" if side[1] == "before" else ">="
        return [{"column": name, "op": op, "value": f"{year}-{month:02d}-01"}]
    if len(re.findall(rf"\b{YEAR}\b", text)) > 1 or len(re.findall(rf"\b(?:{MONTHS})\b", text)) > 1:
        raise LookupError("two years or months: which is meant, or is it a range?")
    return _year_and_month(text, name)


def _year_and_month(text: str, name: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    month = re.search(rf"\b({MONTHS})\b", text)
    year = re.search(rf"\b(in|during|of|for|since|after|before|from|year)?\s*{YEAR}\b", text)
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
        found.append({"column": name, "op": "month", "value": MONTH_NUMBER[month[1]]})
    return found


def _span(name: str, first_year: int, first_month: int, last_year: int, last_month: int) -> list[dict[str, Any]]:
    """From the first day of one month to the last day of another (as < the next month's first)."""
    end = f"{last_year + 1}-01-01" if last_month == 12 else f"{last_year}-{last_month + 1:02d}-01"
    return [{"column": name, "op": ">=", "value": f"{first_year}-{first_month:02d}-01"},
            {"column": name, "op": "<", "value": end}]


def _months_of(part: re.Match[str]) -> tuple[int, int]:
    """The first and last month of "the first half", "the third quarter" (of a year)."""
    size = 6 if part[2] in ("half", "(1/2)") else 3
    number = _ORDER.get(part[1], 12 // size)  # "last"
    if number * size > 12:
        raise LookupError(f"a year has no {part[1]} {part[2]}")
    return (number - 1) * size + 1, number * size
