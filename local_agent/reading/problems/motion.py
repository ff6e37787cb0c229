"""Distance, speed and time, read exactly: a speed from a distance and a time, a distance from a
speed and a time, a time from a distance and a speed.

A distance is "300 km", "10 miles"; a speed "65 mph", "80 km/h", "4 km an hour", "60 miles per
hour"; a time "2.5 hours", "45 minutes", "2 hours 30 minutes". The question decides what is
asked ("what is its average speed", "how fast"; "how far", "how many km"; "how long", "how many
hours"), and the two given must be the message's only numbers: "How long to drive to Chicago at
65 mph?" lacks the distance and is not read here (missing.py says what it needs).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .times import duration_text, durations

_LENGTH = r"(?P<{name}>km|kms|kilomet(?:er|re)s?|miles?|mi|m|meters?|metres?)"
_SPEED = re.compile(r"(?<![\w.])(?P<n>\d+(?:\.\d+)?)\s*(?:(?P<fixed>mph|kph|km/h|kmh|kmph)\b|"
                    + _LENGTH.format(name="unit") + r"\s*(?:/\s*h(?:ou)?r?\b|(?:an|a|per)\s+hour\b))", re.IGNORECASE)
_DISTANCE = re.compile(r"(?<![\w.:])(?P<n>\d+(?:\.\d+)?)\s*" + _LENGTH.format(name="unit") + r"\b(?!\s*/)",
                       re.IGNORECASE)
_ASKS_SPEED = re.compile(r"\b(?:speed|how\s+fast|mph|km/h|per\s+hour)\b", re.IGNORECASE)
_ASKS_DISTANCE = re.compile(r"\bhow\s+(?:far|many\s+(?:km|kilomet|miles))", re.IGNORECASE)
_ASKS_TIME = re.compile(r"\bhow\s+(?:long|many\s+(?:hours|minutes))", re.IGNORECASE)


@dataclass(frozen=True)
class Moved:
    answer: str  # "120 km/h", "150 miles", "2 hours 30 minutes"
    reading: str  # "300 km ÷ 2.5 hours"
    value: float


def _unit(text: str) -> str:
    word = text.lower()
    return "km" if word.startswith("k") else "mile" if word.startswith("mi") else "m"


def read_motion(text: str) -> Moved | None:
    """The exact answer of a distance, speed or time question in `text` (digits), or None."""
    speeds = list(_SPEED.finditer(text))
    speed_spans = [match.span() for match in speeds]
    distances = [m for m in _DISTANCE.finditer(text) if not any(a <= m.start() < b for a, b in speed_spans)]
    spans = [d for d in durations(text) if not any(a <= d.start < b for a, b in speed_spans)]
    if len(re.findall(r"(?<![\w.:])\d+(?:\.\d+)?", text)) != len(speeds) + len(distances) + sum(
            len(re.findall(r"\d+(?:\.\d+)?", d.text)) for d in spans):
        return None  # a number that is no distance, speed or time
    if len(distances) == 1 and len(spans) == 1 and not speeds and _ASKS_SPEED.search(text):
        unit, hours = _unit(distances[0]["unit"]), spans[0].seconds / 3600
        value = float(distances[0]["n"]) / hours
        said = "mph" if unit == "mile" else f"{unit}/h"
        return Moved(f"{value:g} {said}", f"{distances[0].group()} ÷ {spans[0].text}", value)
    if len(speeds) != 1 or not (speed := speeds[0]):
        return None
    unit = "mile" if (speed["fixed"] or "").lower() == "mph" else "km" if speed["fixed"] else _unit(speed["unit"])
    rate = float(speed["n"])
    if len(spans) == 1 and not distances and _ASKS_DISTANCE.search(text):
        value = rate * spans[0].seconds / 3600
        return Moved(f"{value:g} {unit}{'s' if unit == 'mile' and value != 1 else ''}",
                     f"{speed.group()} × {spans[0].text}", value)
    if len(distances) == 1 and not spans and _ASKS_TIME.search(text):
        if _unit(distances[0]["unit"]) != unit or rate == 0:
            return None  # km at miles per hour: not read here
        seconds = float(distances[0]["n"]) / rate * 3600
        return Moved(_in_unit_asked(seconds, text), f"{distances[0].group()} ÷ {speed.group()}", seconds)
    return None


def _in_unit_asked(seconds: float, text: str) -> str:
    """A time as the question asks for it: "90 minutes" for "how many minutes" or "(the answer)
    in minutes", "1.5 hours" for "how many hours", else in hours and minutes ("1 hour 30
    minutes"); "in 50 minutes" is a time given, not asked."""
    asked = _UNIT_ASKED.search(text)
    if asked is None:
        return duration_text(seconds)
    unit = (asked[1] or asked[2]).lower()
    value = seconds / (3600 if unit == "hours" else 60)
    return f"{round(value, 2):g} {unit}"


_UNIT_ASKED = re.compile(r"\bhow\s+many\s+(hours|minutes)\b|\bin\s+(hours|minutes)\b", re.IGNORECASE)
