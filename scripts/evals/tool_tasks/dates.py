"""Date tasks: today, weekdays, date arithmetic and day counts, each from its task's today."""

from __future__ import annotations

import calendar
import datetime as dt
import random

from .common import Task


def _add_months(day: dt.date, months: int) -> dt.date:
    year, month = divmod(day.year * 12 + day.month - 1 + months, 12)
    return dt.date(year, month + 1, min(day.day, calendar.monthrange(year, month + 1)[1]))


def _spoken(day: dt.date) -> tuple[str, ...]:
    return (day.isoformat(), f"{day.day} {day:%B} {day.year}", f"{day:%B} {day.day}, {day.year}")


def _today(rng: random.Random, today: dt.date) -> tuple[str, str, tuple[str, ...]]:
    message = rng.choice(["What day is it today?", "What's the date today?", "What is today's date?"])
    return message, today.isoformat(), (*_spoken(today)[1:], f"{today:%A}")


def _shift(rng: random.Random, today: dt.date) -> tuple[str, str, tuple[str, ...]]:
    amount, unit = rng.choice([(3, "days"), (10, "days"), (2, "weeks"), (3, "weeks"), (1, "month"), (6, "months")])
    forward = rng.random() < 0.7
    days = amount * 7 if unit == "weeks" else amount if unit == "days" else 0
    if unit.startswith("month"):
        target = _add_months(today, amount if forward else -amount)
    else:
        target = today + dt.timedelta(days=days if forward else -days)
    message = (f"What date is {amount} {unit} from today?" if forward else f"What date was it {amount} {unit} ago?")
    return message, target.isoformat(), _spoken(target)[1:]


def _weekday(rng: random.Random, today: dt.date) -> tuple[str, str, tuple[str, ...]]:
    day = today + dt.timedelta(days=rng.randint(-2000, 2000))
    return f"What day of the week is {day.isoformat()}?", f"{day:%A}", ()


def _until(rng: random.Random, today: dt.date) -> tuple[str, str, tuple[str, ...]]:
    day = today + dt.timedelta(days=rng.randint(5, 400))
    return f"How many days until {day.isoformat()}?", str((day - today).days), ()


def _weekday_after(rng: random.Random, today: dt.date) -> tuple[str, str, tuple[str, ...]]:
    days = rng.randint(2, 60)
    target = today + dt.timedelta(days=days)
    return f"Which day of the week will it be in {days} days?", f"{target:%A}", ()


MAKERS = (_today, _shift, _weekday, _until, _weekday_after)


def date_tasks(rng: random.Random, count: int) -> list[Task]:
    tasks = []
    for index in range(count):
        today = dt.date(2024, 1, 1) + dt.timedelta(days=rng.randint(0, 900))
        message, answer, accept = MAKERS[index % len(MAKERS)](rng, today)
        tasks.append(Task(f"date-{index:03d}", "date", message, answer, ("date",), today.isoformat(), accept))
    return tasks
