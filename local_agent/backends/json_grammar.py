"""JSON schema to GBNF for llama.cpp: llama-cpp-python's converter, with integer bounds.

The converter ignores `minimum`, `maximum`, `exclusiveMinimum` and `exclusiveMaximum` (its
TODO). Here an integer with bounds becomes a rule that writes only the integers in range,
digit by digit, as llama.cpp's own C++ converter does: [17, 342] is
`"1" [7-9] | [2-9] [0-9] | [1-2] [0-9] [0-9] | "3" [0-3] [0-9] | "3" "4" [0-2]`. An open
side ends at the converter's own limit, 16 digits. A bounded `number` is written the same
way, as whole units with up to 4 decimals and no exponent (`number_rule`).
"""

from __future__ import annotations

import json
import math
from typing import Any

from ..errors import BackendError

MAX_DIGITS = 16  # the converter's integers: a first digit and at most 15 more
LARGEST = 10**MAX_DIGITS - 1


def _digit_class(low: str, high: str) -> str:
    return f'"{low}"' if low == high else f"[{low}-{high}]"


def _same_length(low: str, high: str) -> list[str]:
    """Sequences of digit classes matching exactly the numbers from `low` to `high`, two
    digit strings of one length."""
    if len(low) == 1:
        return [_digit_class(low, high)]
    rest = len(low) - 1
    if low[0] == high[0]:
        return [f'"{low[0]}" {tail}' for tail in _same_length(low[1:], high[1:])]
    any_rest = " ".join(["[0-9]"] * rest)
    first, last = int(low[0]), int(high[0])
    out: list[str] = []
    if low[1:] != "0" * rest:
        out += [f'"{low[0]}" {tail}' for tail in _same_length(low[1:], "9" * rest)]
        first += 1
    if high[1:] != "9" * rest:
        last -= 1
    if first <= last:
        out.append(f"{_digit_class(str(first), str(last))} {any_rest}")
    if high[1:] != "9" * rest:
        out += [f'"{high[0]}" {tail}' for tail in _same_length("0" * rest, high[1:])]
    return out


def natural_range(low: int, high: int) -> list[str]:
    """GBNF alternatives for the integers from `low` to `high` (0 <= low <= high), without
    leading zeros."""
    out: list[str] = []
    while low <= high:
        digits = len(str(low))
        top = min(high, 10**digits - 1)
        out += _same_length(str(low), str(top))
        low = top + 1
    return out


def bounds(schema: dict[str, Any]) -> tuple[int, int]:
    """The integer range a schema allows, within the grammar's 16 digits either way."""
    low, high = -LARGEST, LARGEST
    if "minimum" in schema:
        low = max(low, math.ceil(schema["minimum"]))
    if "exclusiveMinimum" in schema:
        low = max(low, math.floor(schema["exclusiveMinimum"]) + 1)
    if "maximum" in schema:
        high = min(high, math.floor(schema["maximum"]))
    if "exclusiveMaximum" in schema:
        high = min(high, math.ceil(schema["exclusiveMaximum"]) - 1)
    return low, high


def integer_rule(low: int, high: int) -> str:
    """The GBNF body of an integer in [low, high], followed by the converter's `space`."""
    if low > high:
        raise BackendError(f"no integer lies between {low} and {high}")
    alternatives: list[str] = []
    if low < 0:
        alternatives += [f'"-" {alt}' for alt in natural_range(max(1, -high), -low)]
    if high >= 0:
        alternatives += natural_range(max(0, low), high)
    return "(" + " | ".join(f"({alt})" for alt in alternatives) + ") space"


FRACTION = '"." [0-9] [0-9]? [0-9]? [0-9]?'  # a bounded number's decimals: up to 4


def number_rule(low: int, high: int) -> str:
    """The GBNF body of a number within [low, high] (the whole units `bounds` gives; no
    exponent): the integers in range, and i.dddd for each i whose whole unit [i, i+1) lies in
    range (negatives: -j.dddd within (-(j+1), -j]). Between two fractional bounds the values
    beyond the last whole unit cannot be written: [0, 0.5] allows only 0."""
    alternatives = [integer_rule(low, high).removesuffix(" space")]
    if max(low, 0) <= high - 1:
        alternatives += [f"({alt}) {FRACTION}" for alt in natural_range(max(low, 0), high - 1)]
    if max(0, -high) <= -low - 1:
        alternatives += [f'"-" ({alt}) {FRACTION}' for alt in natural_range(max(0, -high), -low - 1)]
    return "(" + " | ".join(alternatives) + ") space"


BOUND_KEYS = frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"})


def _whole_unit_within(schema: dict[str, Any]) -> bool:
    """Whether a number's bounds hold a whole number (else the grammar leaves them to the
    validation after decoding: [0.2, 0.8] has none)."""
    low, high = bounds(schema)
    return low <= high


def _converter_class() -> Any:
    from llama_cpp.llama_grammar import RESERVED_NAMES, SchemaConverter

    class BoundedIntegers(SchemaConverter):
        def visit(self, schema: Any, name: str) -> Any:
            kind = schema.get("type") if isinstance(schema, dict) else None
            if kind in ("integer", "number") and BOUND_KEYS & set(schema) and not {"enum", "const"} & set(schema) \
                    and (kind == "integer" or _whole_unit_within(schema)):
                rule_name = name + "-" if name in RESERVED_NAMES else name or "root"
                rule = integer_rule if kind == "integer" else number_rule
                return self._add_rule(rule_name, rule(*bounds(schema)))
            return super().visit(schema, name)
    return BoundedIntegers


def schema_gbnf(schema: dict[str, Any]) -> str:
    """The GBNF grammar of `schema` (properties in the schema's order); BackendError for a
    schema the converter cannot take."""
    converter = _converter_class()(prop_order={}, allow_fetch=False, dotall=False, raw_pattern=False)
    try:
        resolved = converter.resolve_refs(json.loads(json.dumps(schema)), "stdin")
        converter.visit(resolved, "")
    except (ValueError, KeyError, NotImplementedError, AssertionError, TypeError) as exc:
        raise BackendError(f"llama.cpp cannot turn this JSON schema into a grammar: {exc}") from None
    return str(converter.format_grammar())
