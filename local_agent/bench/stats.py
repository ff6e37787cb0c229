"""Median and spread of repeated measurements."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Any


def spread(values: Sequence[float]) -> dict[str, float]:
    return {
        "median": statistics.median(values),
        "min": min(values),
        "max": max(values),
        "n": len(values),
    }


def scaled(values: Sequence[float], factor: float) -> dict[str, float]:
    return spread([value * factor for value in values])


def median_of(entry: dict[str, Any] | None, key: str) -> float | None:
    """The median of spread `entry[key]`, or None when it was not measured."""
    if not entry or not isinstance(entry.get(key), dict):
        return None
    return entry[key]["median"]
