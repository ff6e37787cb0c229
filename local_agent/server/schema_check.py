"""A client's JSON schema (response_format or a tool's parameters), checked and made
self-contained before it constrains decoding.

Local `$ref`s (`#/$defs/...`, `#/definitions/...`) are inlined; a recursive one, a remote one
and every keyword the constrained decoders cannot follow are refused by name
(`SchemaProblem`, a 400 with the keyword's path). Annotations (`title`, `description`,
`default`, `examples`, ...) are accepted and dropped from the decoding schema.
"""

from __future__ import annotations

from typing import Any

import jsonschema


class SchemaProblem(ValueError):
    """What in a schema cannot be honoured, in one line naming the keyword and where it is."""


# What the grammar follows: each keyword with the JSON type of its value.
DECODED = frozenset({
    "type", "properties", "required", "additionalProperties", "items", "prefixItems", "minItems", "maxItems",
    "enum", "const", "anyOf", "oneOf", "minLength", "maxLength", "format",
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
})
ANNOTATIONS = frozenset({"title", "description", "default", "examples", "$schema", "$id", "$comment",
                         "deprecated", "readOnly", "writeOnly", "nullable", "strict"})
DEFINITIONS = ("$defs", "definitions")
FORMATS = frozenset({"date", "time", "date-time", "uuid"})  # the converter's; other formats: refused
TYPES = frozenset({"string", "integer", "number", "boolean", "null", "object", "array"})
MAX_DEPTH = 24


MAX_NODES = 2000  # schemas in the inlined result: local $refs used many times cannot blow it up


def prepared(schema: Any, where: str) -> dict[str, Any]:
    """`schema` with its `$ref`s inlined, annotations dropped and every keyword checked;
    SchemaProblem names the first thing that cannot be honoured (`where` is its parameter)."""
    if not isinstance(schema, dict):
        raise SchemaProblem(f"{where}: a JSON schema must be an object")
    if _depth(schema) > 4 * MAX_DEPTH:
        raise SchemaProblem(f"{where}: the schema is nested too deeply")
    try:
        jsonschema.validators.validator_for(schema).check_schema(schema)
    except jsonschema.SchemaError as exc:
        raise SchemaProblem(f"{where}: not a valid JSON schema: {exc.message[:200]}") from None
    definitions = {name: value for key in DEFINITIONS for name, value in (schema.get(key) or {}).items()}
    return _Walk(definitions).node(schema, where, ())


def _depth(value: Any) -> int:
    """How deeply JSON containers nest in `value` (without recursion)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, depth)
            stack.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
    return deepest


class _Walk:
    def __init__(self, definitions: dict[str, Any]) -> None:
        self.definitions = definitions
        self.nodes = 0

    def node(self, node: Any, path: str, resolving: tuple[str, ...]) -> dict[str, Any]:
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise SchemaProblem(f"{path}: the schema is too large once its $refs are inlined")
        if not isinstance(node, dict):
            if node is True:
                return {}
            raise SchemaProblem(f"{path}: only object schemas (or true) are supported here")
        if len(resolving) > MAX_DEPTH:
            raise SchemaProblem(f"{path}: the schema is nested too deeply")
        if "$ref" in node:
            return self.inline(node, path, resolving)
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key in ANNOTATIONS or key in DEFINITIONS:
                continue
            if key not in DECODED:
                raise SchemaProblem(f"{path}: the JSON-schema keyword {key!r} is not supported")
            out[key] = self.child(key, value, f"{path}/{key}", resolving)
        _check_values(out, path)
        return out

    def child(self, key: str, value: Any, path: str, resolving: tuple[str, ...]) -> Any:
        if key == "properties":
            return {name: self.node(sub, f"{path}/{name}", resolving) for name, sub in value.items()}
        if key in ("anyOf", "oneOf", "prefixItems"):
            return [self.node(sub, f"{path}/{index}", resolving) for index, sub in enumerate(value)]
        if key == "items" or (key == "additionalProperties" and isinstance(value, dict)):
            return self.node(value, path, resolving)
        return value

    def inline(self, node: dict[str, Any], path: str, resolving: tuple[str, ...]) -> dict[str, Any]:
        ref = node["$ref"]
        name = next((ref.removeprefix(f"#/{key}/") for key in DEFINITIONS if ref.startswith(f"#/{key}/")), None)
        if name is None or name not in self.definitions:
            raise SchemaProblem(f"{path}: $ref {ref!r} is not supported (only #/$defs/<name> within the schema)")
        if name in resolving:
            raise SchemaProblem(f"{path}: $ref {ref!r} is recursive, which is not supported")
        siblings = {key: value for key, value in node.items() if key != "$ref"}
        inlined = self.node(self.definitions[name], path, (*resolving, name))
        return {**inlined, **self.node(siblings, path, resolving)} if siblings else inlined


def _check_values(node: dict[str, Any], path: str) -> None:
    kinds = node.get("type")
    for kind in kinds if isinstance(kinds, list) else [kinds] if kinds else []:
        if kind not in TYPES:
            raise SchemaProblem(f"{path}/type: unknown type {kind!r}")
    if "format" in node and node["format"] not in FORMATS:
        raise SchemaProblem(f"{path}/format: the format {node['format']!r} is not supported "
                            f"(supported: {', '.join(sorted(FORMATS))})")
    if "format" in node and {"minLength", "maxLength"} & set(node):
        raise SchemaProblem(f"{path}: format together with a length or pattern is not supported")
    if node.get("additionalProperties") not in (None, False) and "properties" in node:
        raise SchemaProblem(f"{path}/additionalProperties: extra properties beside listed ones are not supported "
                            "(set additionalProperties to false)")
    for key in ("minItems", "maxItems", "minLength", "maxLength"):
        if key in node and (not isinstance(node[key], int) or isinstance(node[key], bool)):
            raise SchemaProblem(f"{path}/{key}: must be an integer")
