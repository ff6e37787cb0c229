"""`date`: today's date, weekdays and date arithmetic, from the agent's today (injected, so a
turn answers for the day it is about and tests do not depend on the clock)."""

from __future__ import annotations

import calendar
import datetime as dt
import re
from collections.abc import Callable
from typing import Literal

from ..errors import ToolError
from .base import Tool, object_schema

Unit = Literal["days", "weeks", "months", "years"]
Today = dt.date | Callable[[], dt.date]
"""A fixed date, or what gives the date at the time of the call (the agent's today)."""
MAX_AMOUNT = 100_000
DATE_PATTERN = (r"^(today|tomorrow|yesterday|(last-)?(mon|tue|wed|thu|fri|sat|sun)|(month|year)-(start|end)|"
                r"nth-([1-9]|[12][0-9]|3[01])|([0-9]{4}|-)-[0-9]{2}-[0-9]{2})$")
DESCRIPTION = ("Dates from today: operation today (today's date), weekday (the weekday of date), add (date plus "
               "amount units; a negative amount goes back), between (days from date to other, also in unit; "
               "inclusive: both counted), "
               "age (the age on other, or today, of someone born on date), month_days (the days in date's "
               "month), leap_year (whether date's year, or the year amount years after it, is one), "
               "day_of_year (date's day of the year and "
               "week), nth_weekday (the amount-th `weekday` of date's month, -1 the last) or count_weekdays "
               "(how many of `weekday`, or of workday: Monday to Friday, from date to other, both counted) or day_n "
               "(the amount-th day of a span whose day 1 is date). "
               "Dates are YYYY-MM-DD, today, tomorrow, yesterday, --MM-DD for a day of this year, mon "
               "to sun for the coming weekday, last-mon to last-sun for the last one, nth-15 for the coming "
               "15th of a month (today included), month-start, month-end, year-start or year-end.")
_RELATIVE = {"today": 0, "tomorrow": 1, "yesterday": -1}
WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_PERIOD_BOUNDS: dict[str, Callable[[dt.date], dt.date]] = {
    "month-start": lambda day: day.replace(day=1),
    "month-end": lambda day: day.replace(day=calendar.monthrange(day.year, day.month)[1]),
    "year-start": lambda day: day.replace(month=1, day=1),
    "year-end": lambda day: day.replace(month=12, day=31),
}


def parse_date(text: str, today: dt.date, *, upcoming: bool = False) -> dt.date:
    """A date of the tool's arguments. --MM-DD is that day of today's year, or with
    `upcoming` its next one from today on."""
    word = text.strip().lower()
    if word in _RELATIVE:
        return today + dt.timedelta(days=_RELATIVE[word])
    if word in WEEKDAYS:  # the coming one, after today
        return today + dt.timedelta(days=(WEEKDAYS.index(word) - today.weekday()) % 7 or 7)
    if word.removeprefix("last-") in WEEKDAYS:  # the last one, before today
        return today - dt.timedelta(days=(today.weekday() - WEEKDAYS.index(word[5:])) % 7 or 7)
    if word in _PERIOD_BOUNDS:
        return _PERIOD_BOUNDS[word](today)
    if re.fullmatch(r"nth-([1-9]|[12][0-9]|3[01])", word):
        return _coming_day_of_month(int(word[4:]), today)
    try:
        if word.startswith("--"):
            day = dt.date(today.year, int(word[2:4]), int(word[5:7]))
            return day.replace(year=today.year + 1) if upcoming and day < today else day
        return dt.date.fromisoformat(text.strip())
    except ValueError:
        raise ToolError(f"not a date: {text!r} (write YYYY-MM-DD, --MM-DD, today, tomorrow, yesterday, a weekday "
                        "such as fri or last-fri, month-start, month-end, year-start or year-end)") from None


def _year_before(day: dt.date) -> dt.date:
    """The same day a year before (28 February for a 29th)."""
    return day.replace(year=day.year - 1) if not (day.month == 2 and day.day == 29) else dt.date(day.year - 1, 2, 28)


def _coming_day_of_month(number: int, today: dt.date) -> dt.date:
    """The coming `number`-th day of a month, today included ("the 15th": this month's when it
    is still to come, else the next month's; "the 31st": the next month that has one)."""
    year, month = today.year, today.month
    while True:
        if number <= calendar.monthrange(year, month)[1] and dt.date(year, month, number) >= today:
            return dt.date(year, month, number)
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)


def shift(day: dt.date, amount: int, unit: Unit) -> dt.date:
    """`day` moved by `amount` units; a month or year step lands on the month's last day when
    the day does not exist there (31 January + 1 month is 28 or 29 February)."""
    try:
        if unit in ("days", "weeks"):
            return day + dt.timedelta(days=amount * (7 if unit == "weeks" else 1))
        months = amount * (12 if unit == "years" else 1)
        year, month = divmod(day.year * 12 + day.month - 1 + months, 12)
        last = calendar.monthrange(year, month + 1)[1]
        return dt.date(year, month + 1, min(day.day, last))
    except (OverflowError, ValueError):
        raise ToolError("the date falls outside the years 1 to 9999") from None


def spoken(day: dt.date) -> str:
    return f"{day:%A}, {day.day} {day:%B} {day.year} ({day.isoformat()})"


def age(born: dt.date, on: dt.date) -> int:
    """Full years from `born` to `on` (a birthday on 29 February counts from 1 March)."""
    return on.year - born.year - ((on.month, on.day) < (born.month, born.day))


def _span_text(start: dt.date, end: dt.date, unit: Unit) -> str:
    """The days from `start` to `end`, and in `unit` when it is longer than a day."""
    days = (end - start).days
    text = f"{days} days"
    if unit == "weeks":
        weeks, rest = divmod(abs(days), 7)
        extra = f" and {_plural(rest, 'day')}" if rest else ""
        text += f" ({'-' if days < 0 else ''}{_plural(weeks, 'week')}{extra})"
    elif unit in ("months", "years"):
        months = (end.year - start.year) * 12 + end.month - start.month - (end.day < start.day)
        text += f" ({months // 12} years)" if unit == "years" else f" ({months} months)"
    return text


def _plural(count: int, unit: str) -> str:
    return f"{count} {unit}{'' if count == 1 else 's'}"


def _between(day: dt.date, date: str, other: str, today: dt.date, unit: Unit, inclusive: bool) -> str:
    """The span from `day` (written `date`) to `other`, in `unit`; both ends counted when `inclusive`."""
    if not other:
        raise ToolError("between needs other: the date to count to")
    end = parse_date(other, today, upcoming=date.strip().lower() == "today")
    if other.startswith("--") and end < day:  # "between Christmas and New Year": the one after
        end = end.replace(year=end.year + 1)
    if date.startswith("--") and other.strip().lower() == "today" and day > end:
        day = _year_before(day)  # "since Christmas", asked in March: last year's
    day, end = sorted((day, end))  # a span is told from its earlier end: "how many days since" counts up, never -221
    if inclusive and unit == "days":  # "counting both days": the first day is one too
        return f"From {spoken(day)} to {spoken(end)}, counting both days, is {abs((end - day).days) + 1} days."
    return f"From {spoken(day)} to {spoken(end)} is {_span_text(day, end, unit)}."


def _amount_text(amount: int, unit: Unit) -> str:
    count = abs(amount)
    return f"{count} {unit[:-1] if count == 1 else unit}"


def nth_weekday(day: dt.date, n: int, weekday: str) -> dt.date:
    """The `n`-th `weekday` (mon ... sun) of `day`'s month; -1 is the last one."""
    if weekday not in WEEKDAYS or n not in (1, 2, 3, 4, 5, -1):
        raise ToolError("nth_weekday needs amount 1 to 5 or -1 (the last) and weekday mon to sun")
    target = WEEKDAYS.index(weekday)
    days = [d for d in range(1, calendar.monthrange(day.year, day.month)[1] + 1)
            if dt.date(day.year, day.month, d).weekday() == target]
    if n > len(days):
        raise ToolError(f"{day:%B} {day.year} has only {len(days)} {calendar.day_name[target]}s")
    return day.replace(day=days[n - 1 if n > 0 else -1])


def counted_days(start: dt.date, end: dt.date, weekday: str) -> list[dt.date]:
    """The days from `start` to `end`, both counted, that are `weekday` (mon ... sun) or, for
    workday, Monday to Friday."""
    if weekday not in (*WEEKDAYS, "workday"):
        raise ToolError("count_weekdays needs weekday mon to sun, or workday (Monday to Friday)")
    if end < start:
        raise ToolError(f"{spoken(end)} is before {spoken(start)}")
    if (end - start).days > 366 * 100:
        raise ToolError("count_weekdays counts at most 100 years")
    wanted = range(5) if weekday == "workday" else (WEEKDAYS.index(weekday),)
    return [start + dt.timedelta(days=n) for n in range((end - start).days + 1)
            if (start + dt.timedelta(days=n)).weekday() in wanted]


def _ordinal(n: int) -> str:
    return "last" if n == -1 else ("first", "second", "third", "fourth", "fifth")[n - 1]


def _counted_text(start: dt.date, end: dt.date, weekday: str) -> str:
    found = counted_days(start, end, weekday)
    span = f"From {spoken(start)} to {spoken(end)}, both counted"
    if weekday == "workday":
        return (f"{span}, there are {len(found)} working days (Monday to Friday; public holidays are not "
                "taken out).")
    name = calendar.day_name[WEEKDAYS.index(weekday)]
    listed = f": {', '.join(f'{day.day} {day:%B}' for day in found)}" if 0 < len(found) <= 6 else ""
    one = len(found) == 1
    return f"{span}, there {'is' if one else 'are'} {len(found)} {name}{'' if one else 's'}{listed}."


class DateTool:
    """The date tool for one `today`."""

    def __init__(self, today: Today) -> None:
        self._today = today

    @property
    def today(self) -> dt.date:
        return self._today if isinstance(self._today, dt.date) else self._today()

    def __call__(self, operation: str, date: str = "today", amount: int = 0, unit: Unit = "days",
                 other: str = "", weekday: str = "", inclusive: bool = False) -> str:
        today = self.today
        day = parse_date(date, today)
        if operation == "nth_weekday":  # a month without its year is the coming one
            ahead = date.startswith("--") and day.month < today.month
            found = nth_weekday(day.replace(year=day.year + 1) if ahead else day, amount, weekday)
            return f"The {_ordinal(amount)} {found:%A} of {found:%B} {found.year} is {spoken(found)}."
        if operation == "count_weekdays":
            if not other:
                raise ToolError("count_weekdays needs other: the last day to count")
            return _counted_text(day, parse_date(other, today, upcoming=date.strip().lower() == "today"), weekday)
        if operation == "today":
            return f"Today is {spoken(today)}."
        if operation == "weekday":
            return f"{day.day} {day:%B} {day.year} ({day.isoformat()}) is a {day:%A}."
        if operation == "day_n":
            if amount < 1:
                raise ToolError("day_n needs amount 1 or more: which day of the span, counting date as day 1")
            return f"Day {amount}, counting {spoken(day)} as day 1, is {spoken(day + dt.timedelta(days=amount - 1))}."
        if operation == "add":
            moved = shift(day, amount, unit)
            direction = "after" if amount >= 0 else "before"
            return f"{_amount_text(amount, unit)} {direction} {spoken(day)} is {spoken(moved)}."
        if operation == "between":
            return _between(day, date, other, today, unit, inclusive)
        if operation == "age":
            on = parse_date(other or "today", today)
            if on < day:
                raise ToolError(f"{spoken(on)} is before the birth date {spoken(day)}")
            return f"Someone born on {spoken(day)} is {age(day, on)} years old on {spoken(on)}."
        if operation == "month_days":
            return f"{day:%B} {day.year} has {calendar.monthrange(day.year, day.month)[1]} days."
        if operation == "day_of_year":
            week = day.isocalendar()
            return (f"{spoken(day)} is day {day.timetuple().tm_yday} of {day.year}, in week {week.week} of "
                    f"{week.year} (ISO weeks).")
        if operation == "leap_year":  # of date's year, or the year `amount` years after it ("next year": 1)
            year = day.year + amount
            leap = calendar.isleap(year)
            return (f"{year} {'is' if leap else 'is not'} a leap year: it has {366 if leap else 365} days, "
                    f"and February has {29 if leap else 28}.")
        raise ToolError(f"unknown date operation {operation!r}")


def make_date(today: Today) -> Tool:
    parameters = object_schema({
        "operation": {"type": "string", "enum": ["today", "weekday", "add", "between", "age", "month_days",
                                                 "leap_year", "day_of_year", "nth_weekday", "count_weekdays", "day_n"]},
        "date": {"type": "string", "pattern": DATE_PATTERN, "maxLength": 11},
        "amount": {"type": "integer", "minimum": -MAX_AMOUNT, "maximum": MAX_AMOUNT},
        "unit": {"type": "string", "enum": ["days", "weeks", "months", "years"]},
        "other": {"type": "string", "pattern": DATE_PATTERN, "maxLength": 11},
        "weekday": {"type": "string", "enum": [*WEEKDAYS, "workday"]},
        "inclusive": {"type": "boolean"},
    }, required=["operation"])
    return Tool("date", DESCRIPTION, parameters, DateTool(today))
