"""An MCP tool's arguments narrowed to the message, where the values come from a vocabulary the
program knows: the program proposes the candidates, the model chooses among them (as the
calculator's numbers are kept to the message's: narrowing.py).

Two vocabularies so far. Clock times: a string argument whose description asks for HH:MM may
only be a time the message writes ("9:30" -> 09:30, "14:00"). The IANA time zones (zoneinfo):
a string argument whose name or
description says it is a time zone may only be a zone whose city the message names
("Tokyo" -> Asia/Tokyo, "New York" -> America/New_York). A message that names no such city
leaves the argument free. Unaided, the 135M model wrote "UTC-8" for Tokyo's zone; offered
Asia/Tokyo or UTC, it chose UTC for every city of scripts/eval_mcp_routing.py.

When grounding leaves each required argument one value (one zone named, one zone argument),
the call needs no judgement: `determined` gives its arguments, and the router makes the call
by rule before the model's first step (as a search takes the message as its query).
"""

from __future__ import annotations

import copy
import dataclasses
import re
import zoneinfo
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from .base import Tool

_ZONE_WORDS = re.compile(r"time\s*zone|timezone|\biana\b", re.I)
_CLOCK_ARGUMENT = re.compile(r"\bHH:MM\b")
_CLOCK = re.compile(r"(?<![\d:])([01]?\d|2[0-3]):([0-5]\d)(?![\d:])")


@lru_cache(maxsize=1)
def _cities() -> dict[str, str]:
    """city name (lower case, spaces) -> its zone, for every zone named Area/City, and the
    zones named for a country alone (Japan, Singapore, Israel, ...), and UTC and GMT."""
    cities: dict[str, str] = {}
    for zone in sorted(zoneinfo.available_timezones()):
        area, _, city = zone.rpartition("/")
        if area and not area.startswith("Etc") and area not in ("SystemV", "US"):
            cities.setdefault(city.replace("_", " ").lower(), zone)
        elif not area and zone.isalpha() and zone[0].isupper() and not zone.isupper() and zone != "Factory":
            cities.setdefault(zone.lower(), zone)
    return {**cities, "utc": "UTC", "gmt": "GMT"}


def zones_named(message: str) -> list[str]:
    """The zones whose cities the message names, in the order it names them."""
    text = " ".join(re.findall(r"[a-z]+", message.lower()))
    found = []
    for city, zone in _cities().items():
        at = re.search(rf"\b{re.escape(city)}\b", text)
        if at is not None:
            found.append((at.start(), zone))
    return [zone for _, zone in sorted(found)]


def times_named(message: str) -> list[str]:
    """The clock times the message writes, as HH:MM, in order, once each."""
    return list(dict.fromkeys(f"{int(hour):02d}:{minute}" for hour, minute in _CLOCK.findall(message)))


def is_zone_argument(name: str, schema: Mapping[str, Any]) -> bool:
    return schema.get("type") == "string" and "enum" not in schema and bool(
        _ZONE_WORDS.search(name.replace("_", " ")) or _ZONE_WORDS.search(str(schema.get("description", ""))))


def _candidates(name: str, schema: Mapping[str, Any], zones: list[str], times: list[str]) -> list[str]:
    """The values the message offers for one argument (none: the argument stays free)."""
    if is_zone_argument(name, schema):
        return zones
    if schema.get("type") == "string" and "enum" not in schema and _CLOCK_ARGUMENT.search(
            str(schema.get("description", ""))):
        return times
    return []


def grounded(tool: Tool, message: str) -> Tool:
    """`tool` with its time-zone and clock-time arguments kept to the values the message
    names; unchanged when it has none or the message names none."""
    zones, times = zones_named(message), times_named(message)
    narrowed = {name: values for name, schema in tool.parameters.get("properties", {}).items()
                if (values := _candidates(name, schema, zones, times))}
    if not narrowed:
        return tool
    parameters = copy.deepcopy(tool.parameters)
    for name, values in narrowed.items():
        parameters["properties"][name] = {"type": "string", "enum": values}
    return dataclasses.replace(tool, parameters=parameters)


def determined(tool: Tool) -> dict[str, Any] | None:
    """The arguments, when the schema leaves each required one a single value and asks for
    nothing else; else None."""
    properties = tool.parameters.get("properties", {})
    required = tool.parameters.get("required", [])
    if not required or set(required) != set(properties):
        return None
    values = {name: properties[name].get("enum", []) for name in required}
    if any(len(choices) != 1 for choices in values.values()):
        return None
    return {name: choices[0] for name, choices in values.items()}
