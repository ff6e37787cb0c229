"""An MCP server's tool as one of the assistant's tools: its arguments' JSON Schema kept to
what both constrained decoders follow (actions.py), and its result as text.

A server's schema may leave strings and arrays unbounded, allow any extra property, or use
features the decoders do not follow ($ref, oneOf, ...). The schema offered to the model is
bounded (strings at most MAX_STRING characters, arrays at most MAX_ITEMS items), closed (no
other properties) and plain; a tool whose schema needs more is left out, with the reason.
Each property's description joins the tool's, since the model sees only the tool's line.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..errors import ToolError
from .base import object_schema

MAX_STRING = 200
MAX_ITEMS = 16
MAX_DEPTH = 3
DESCRIPTION_CHARS = 400
SCALARS = {"string", "integer", "number", "boolean"}
KEPT = ("description", "enum", "minimum", "maximum", "minLength", "maxLength", "pattern", "minItems", "maxItems")


def bounded(schema: Mapping[str, Any], where: str, depth: int = 0) -> dict[str, Any]:
    """One property's schema, bounded; ToolError naming `where` when it cannot be."""
    kind = schema.get("type")
    if isinstance(kind, list):  # ["string", "null"]: the value, not the null
        kinds = [k for k in kind if k != "null"]
        kind = kinds[0] if len(kinds) == 1 else None
    if kind == "object" and depth < MAX_DEPTH:
        return parameters(schema, where, depth + 1)
    if kind == "array" and depth < MAX_DEPTH and isinstance(schema.get("items"), Mapping):
        array: dict[str, Any] = {"type": "array", "items": bounded(schema["items"], f"{where}[]", depth + 1)}
        array.update({key: schema[key] for key in ("description", "minItems") if key in schema})
        array["maxItems"] = min(int(schema.get("maxItems", MAX_ITEMS)), MAX_ITEMS)
        return array
    if kind not in SCALARS:
        raise ToolError(f"{where}: its type is not one the decoder follows")
    out: dict[str, Any] = {"type": kind, **{key: schema[key] for key in KEPT if key in schema}}
    if kind == "string" and "enum" not in out:
        out["maxLength"] = min(int(out.get("maxLength", MAX_STRING)), MAX_STRING)
    return out


def parameters(schema: Mapping[str, Any], where: str = "arguments", depth: int = 0) -> dict[str, Any]:
    """An MCP input schema (an object) as a closed, bounded arguments object."""
    if schema.get("type", "object") != "object":
        raise ToolError(f"{where}: not an object")
    properties = schema.get("properties") or {}
    if not isinstance(properties, Mapping):
        raise ToolError(f"{where}: its properties are not an object")
    required = [name for name in schema.get("required", []) if name in properties]
    bounded_properties = {name: bounded(value, f"{where}.{name}", depth) for name, value in properties.items()
                          if isinstance(value, Mapping)}
    return object_schema(bounded_properties, required)


def description(tool: Mapping[str, Any]) -> str:
    """The tool's description, with each argument's own, on one line."""
    text = " ".join(str(tool.get("description") or tool.get("title") or tool["name"]).split())
    properties = (tool.get("inputSchema") or {}).get("properties") or {}
    said = [f"{name}: {' '.join(str(value.get('description', '')).split())}" for name, value in properties.items()
            if isinstance(value, Mapping) and value.get("description")]
    if said:
        text += " Arguments: " + "; ".join(said)
    return text[:DESCRIPTION_CHARS]


def summary(tool: Mapping[str, Any]) -> str:
    """What the tool does, in words, for routing: its name as words and its own description
    (the arguments' descriptions would pull every tool of a server toward the same words)."""
    name = str(tool["name"]).replace("_", " ").replace("-", " ")
    return f"{name}: {' '.join(str(tool.get('description') or tool.get('title') or '').split())}"[:DESCRIPTION_CHARS]


def result_text(result: Mapping[str, Any]) -> str:
    """A CallToolResult (as a dict) as text; ToolError with its text when the tool failed."""
    parts = []
    for block in result.get("content") or []:
        if block.get("type") == "text":
            parts.append(str(block.get("text", "")))
        else:
            parts.append(f"[{block.get('type', 'content')} not shown]")
    text = "\n".join(parts).strip()
    if result.get("isError"):
        raise ToolError(text or "the MCP tool failed")
    return compact(text) or "(no result)"


def compact(text: str) -> str:
    """JSON on one line (fewer tokens of a small context, one line on the terminal); other text as it is."""
    try:
        return json.dumps(json.loads(text), ensure_ascii=False, separators=(", ", ": "))
    except ValueError:
        return text
