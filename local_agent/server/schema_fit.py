"""A checked schema (schema_check.py) made into the schema decoding is constrained to, sized
to the tokens the reply may take.

Every free string gets a `maxLength` and every array a `maxItems` (the client's own when
smaller), so the grammar closes them instead of the token limit cutting the JSON: the
longest reply the decoding schema allows, counted as one token per character (`size`), must
fit `room`; caps are halved until it does. Writing text takes fewer tokens than characters
in practice; a reply that is cut anyway is retried with caps halved again (client_turn.py).
Free strings are kept to characters that need no escape (tools/actions.py explains why).
"""

from __future__ import annotations

import json
from typing import Any

from ..tools.actions import PLAIN_TEXT
from .schema_check import SchemaProblem

STRING_CHARS = 512  # the longest free string, before fitting to the room
ARRAY_ITEMS = 16  # the most items of an array, before fitting
MIN_STRING_CHARS = 8
FORMAT_CHARS = {"date": 12, "time": 32, "date-time": 44, "uuid": 38}
NUMBER_CHARS = 52  # "-", 16 digits, ".", 16 digits, "e-", 16 digits
INTEGER_CHARS = 17


def decoding(schema: dict[str, Any], chars: int, items: int) -> dict[str, Any]:
    """The decoding schema of a checked schema: strings at most `chars` long and arrays at
    most `items` long (or the client's bound when smaller), `oneOf` and type lists as `anyOf`."""
    if isinstance(schema.get("type"), list):
        rest = {key: value for key, value in schema.items() if key != "type"}
        return {"anyOf": [decoding({**rest, "type": kind}, chars, items) for kind in schema["type"]]}
    out = {key: _decoded(key, value, chars, items) for key, value in schema.items()}
    if "oneOf" in out:
        out["anyOf"] = out.pop("oneOf")
    kind = out.get("type")
    if kind == "string" and not {"enum", "const", "format"} & set(out):
        low = out.get("minLength", 0)
        out["maxLength"] = max(low, min(out.get("maxLength", chars), chars))
        out["pattern"] = PLAIN_TEXT.format(min=low, max=out["maxLength"])
    if kind == "array" and "items" in out:
        low = out.get("minItems", 0)
        out["maxItems"] = max(low, min(out.get("maxItems", items), items))
    return out


def _decoded(key: str, value: Any, chars: int, items: int) -> Any:
    if key == "properties":
        return {name: decoding(sub, chars, items) for name, sub in value.items()}
    if key in ("anyOf", "oneOf", "prefixItems"):
        return [decoding(sub, chars, items) for sub in value]
    if key == "items":
        return decoding(value, chars, items)
    return value


def size(schema: dict[str, Any]) -> int:
    """The most characters a reply of this decoding schema can take; SchemaProblem where it
    has no bound (a free-form object or array, or any value at all)."""
    if "enum" in schema or "const" in schema:
        return max(len(json.dumps(value)) for value in schema.get("enum", [schema.get("const")]))
    if "anyOf" in schema:
        return max(size(sub) for sub in schema["anyOf"])
    kind = schema.get("type")
    if kind == "string":
        return FORMAT_CHARS[schema["format"]] if "format" in schema else 2 + schema["maxLength"]
    if kind in ("integer", "number", "boolean", "null"):
        return {"integer": INTEGER_CHARS, "number": NUMBER_CHARS, "boolean": 5, "null": 4}[kind]
    if kind == "object" and "properties" in schema:
        return 2 + sum(len(json.dumps(name)) + 4 + size(sub) for name, sub in schema["properties"].items())
    if kind == "array" and isinstance(schema.get("prefixItems"), list):
        return 2 + sum(size(sub) + 2 for sub in schema["prefixItems"])
    if kind == "array" and "items" in schema:
        return 2 + schema["maxItems"] * (size(schema["items"]) + 2)
    unbounded = {"object": "an object without properties", "array": "an array without items"}
    what = unbounded.get(str(kind), "a value of any type")
    raise SchemaProblem(f"{what} is not supported (it has no length bound): give its properties, items or type")


def fitted(schema: dict[str, Any], room: int) -> dict[str, Any]:
    """The decoding schema whose longest reply fits in `room` tokens; SchemaProblem when even
    the smallest caps leave it too long."""
    chars, items = STRING_CHARS, ARRAY_ITEMS
    while True:
        candidate = decoding(schema, chars, items)
        needed = size(candidate)
        if needed <= room:
            return candidate
        if chars > MIN_STRING_CHARS:
            chars //= 2
        elif items > 1:
            items //= 2
        else:
            raise SchemaProblem(f"max_tokens leaves {room} tokens for the reply, too few for this schema "
                                f"(its shortest complete form here needs up to {needed})")


def bounded(schema: dict[str, Any], where: str) -> dict[str, Any]:
    """`schema`, once it is known to have a length bound everywhere (SchemaProblem where not)."""
    try:
        size(decoding(schema, MIN_STRING_CHARS, 1))
    except SchemaProblem as exc:
        raise SchemaProblem(f"{where}: {exc}") from None
    return schema
