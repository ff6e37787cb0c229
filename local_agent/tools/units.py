"""Units of measure the arithmetic rules convert between, with exact factors: length, mass,
volume (US gallons, quarts, pints and cups), time, and temperature (an offset, not a factor).
A conversion is a calculator expression, so the answer shows how it was computed
("5 * 1609.344 / 1000 = 8.04672")."""

from __future__ import annotations

import re
from decimal import Decimal
from fractions import Fraction

from .question_text import decimal_text

# name -> (dimension, size in the dimension's base unit: metre, gram, millilitre, second, month, metre an hour)
_SIZES: dict[str, tuple[str, float]] = {
    "kilometer": ("length", 1000), "km": ("length", 1000), "meter": ("length", 1), "m": ("length", 1),
    "centimeter": ("length", 0.01), "cm": ("length", 0.01), "millimeter": ("length", 0.001), "mm": ("length", 0.001),
    "mile": ("length", 1609.344), "mi": ("length", 1609.344), "yard": ("length", 0.9144), "yd": ("length", 0.9144),
    "foot": ("length", 0.3048), "feet": ("length", 0.3048), "ft": ("length", 0.3048), "inch": ("length", 0.0254),
    "kilogram": ("mass", 1000), "kg": ("mass", 1000), "kilo": ("mass", 1000), "gram": ("mass", 1), "g": ("mass", 1),
    "milligram": ("mass", 0.001), "mg": ("mass", 0.001), "pound": ("mass", 453.59237), "lb": ("mass", 453.59237),
    "ounce": ("mass", 28.349523125), "oz": ("mass", 28.349523125), "stone": ("mass", 6350.29318),
    "liter": ("volume", 1000), "litre": ("volume", 1000), "l": ("volume", 1000), "milliliter": ("volume", 1),
    "millilitre": ("volume", 1), "ml": ("volume", 1), "gallon": ("volume", 3785.411784),
    "quart": ("volume", 946.352946), "pint": ("volume", 473.176473), "cup": ("volume", 236.5882365),
    # US kitchen measures: 16 tablespoons a cup, 3 teaspoons a tablespoon
    "tablespoon": ("volume", 14.78676478125), "tbsp": ("volume", 14.78676478125),
    "teaspoon": ("volume", 4.92892159375), "tsp": ("volume", 4.92892159375),
    "second": ("time", 1), "sec": ("time", 1), "minute": ("time", 60), "min": ("time", 60), "hour": ("time", 3600),
    "hr": ("time", 3600), "day": ("time", 86_400), "week": ("time", 604_800),
    "month": ("calendar", 1), "year": ("calendar", 12),
    # speeds, in metres an hour so that each factor is exact
    "mph": ("speed", 1609.344), "km/h": ("speed", 1000), "kmh": ("speed", 1000), "kph": ("speed", 1000),
    "kmph": ("speed", 1000), "m/s": ("speed", 3600),
}
_TEMPERATURES = {"celsius": "c", "centigrade": "c", "fahrenheit": "f", "kelvin": "k"}
_SCALES = frozenset(_TEMPERATURES.values())
_SPELLED = {"metre": "meter", "kilometre": "kilometer", "centimetre": "centimeter", "millimetre": "millimeter",
            "lbs": "lb", "inches": "inch", "feet": "feet", "hrs": "hr", "mins": "min", "secs": "sec"}
# speeds said in words ("kilometres per hour"), read with the spaces left out
_SPOKEN_SPEEDS = {f"{length}per{time}": short for length, time, short in (
    ("kilometres", "hour", "km/h"), ("kilometers", "hour", "km/h"), ("kilometre", "hour", "km/h"),
    ("kilometer", "hour", "km/h"), ("miles", "hour", "mph"), ("mile", "hour", "mph"),
    ("metres", "second", "m/s"), ("meters", "second", "m/s"))}
_SPOKEN_SPEED = r"(?:kilomet(?:re|er)s?|miles?|met(?:re|er)s?)\s+per\s+(?:hour|second)\b"
_NAMES = sorted([*_SIZES, *_TEMPERATURES, *_SPELLED], key=len, reverse=True)
# A unit's name: plural or not, "degrees" before a temperature; single letters only where they
# cannot be a word ("350 f", "14 degrees F", "in c" at the end), never the preposition "in".
UNIT = (rf"{_SPOKEN_SPEED}|(?:degrees?\s+)?(?:{'|'.join(_NAMES)})(?:e?s)?\b|°\s?[cfk]\b|(?<=\d)\s?[cf]\b|"
        r"\bdegrees?\s+[cfk]\b|"
        r"(?<=\bin\s)[cfk](?=\s*\??$)|(?<=\bto\s)[cfk](?=\s*\??$)")


def unit_name(text: str) -> str | None:
    """The table's name of a unit as written ("Kilometres" -> kilometer, "°F" -> f), or None."""
    word = re.sub(r"^degrees?\s+|[°\s]", "", text.lower())
    for written in (word, re.sub(r"es$", "", word), re.sub(r"s$", "", word)):
        name = _SPELLED.get(written) or _SPOKEN_SPEEDS.get(written, written)
        if name in _SIZES or name in _SCALES:
            return name
        if name in _TEMPERATURES:
            return _TEMPERATURES[name]
    return None


def ratio(unit: str, per: str) -> float | None:
    """How many `unit`s one `per` holds (hours in a week: 168), or None when the two are not
    measured against each other here (kilograms in a mile; days in a month)."""
    if unit == "day" and per == "year":
        return 365
    if unit == "week" and per == "year":
        return 52
    if unit not in _SIZES or per not in _SIZES or _SIZES[unit][0] != _SIZES[per][0]:
        return None
    return _SIZES[per][1] / _SIZES[unit][1]


def dimension(name: str) -> str | None:
    """What a unit of the table measures ("km": length; months and years: time), or None."""
    if name in _SCALES:
        return "temperature"
    found = _SIZES.get(name)
    return None if found is None else ("time" if found[0] == "calendar" else found[0])


def smaller(unit: str, than: str) -> bool:
    """Whether `unit` is a smaller unit of the same measure as `than` (inches than feet)."""
    if unit not in _SIZES or than not in _SIZES:
        return False
    return _SIZES[unit][0] == _SIZES[than][0] and _SIZES[unit][1] < _SIZES[than][1]


def conversion(amount: str, source: str, target: str) -> str | None:
    """The calculator expression converting `amount` `source`s to `target`s, or None when they
    measure different things."""
    if source in _SCALES and target in _SCALES:
        return None if source == target else _temperature(amount, source, target)
    if "year" in (source, target) and {source, target} & {"day", "week"}:  # 365 days, 52 weeks
        per_year = decimal_text(ratio(target if source == "year" else source, "year") or 0)
        return f"{amount} * {per_year}" if source == "year" else f"{amount} / {per_year}"
    if source not in _SIZES or target not in _SIZES or _SIZES[source][0] != _SIZES[target][0]:
        return None
    factor = Fraction(str(_SIZES[source][1])) / Fraction(str(_SIZES[target][1]))
    if factor == 1:
        return None
    if _terminates(factor):
        return f"{amount} * {_decimal(factor)}"
    if _terminates(1 / factor):
        return f"{amount} / {_decimal(1 / factor)}"
    return f"{amount} * {_decimal(factor.numerator)} / {_decimal(factor.denominator)}"


def _terminates(value: Fraction) -> bool:
    """Whether `value` is written exactly with finitely many decimals."""
    denominator = value.denominator
    for prime in (2, 5):
        while denominator % prime == 0:
            denominator //= prime
    return denominator == 1


def _decimal(value: Fraction | int) -> str:
    return decimal_text(Decimal(value.numerator) / Decimal(value.denominator)) if isinstance(value, Fraction) \
        else str(value)


def _temperature(amount: str, source: str, target: str) -> str:
    celsius = {"c": amount, "f": f"({amount} - 32) * 5 / 9", "k": f"({amount} - 273.15)"}[source]
    return {"c": celsius, "f": f"{celsius} * 9 / 5 + 32", "k": f"{celsius} + 273.15"}[target]

