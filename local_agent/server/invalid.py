"""A request body that fails validation, said in the API's own terms.

pydantic reports where an error is as a path that mixes the body's fields with its own
names for the members of a union (`stop.function-after[_encodable(), str]`), and says what
is wrong in its own words ("Input should be a valid string"). A client knows only the API:
the param here is the JSON path as OpenAI writes it (`messages[0].content`, `stop[1]`) and
the message says what the field must be and what type came, never the value itself.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel

JSON_TYPES = {"string": "a string", "int": "an integer", "float": "a number", "bool": "a boolean",
              "list": "an array", "dict": "an object", "model": "an object", "model_attributes": "an object",
              "none": "null"}
# What a field of several types takes, when a value fits none of them.
ALTERNATIVES = {"stop": "a string or an array of strings", "input": "a string or an array of strings",
                "content": "a string, an array of content parts or null"}
BAD_JSON = "the body is not valid JSON (UTF-8)"


def field_names(models: Iterable[type[BaseModel]]) -> frozenset[str]:
    """Every field name of these models and of the models in their fields' types."""
    names: set[str] = set()
    pending, seen = list(models), set()
    while pending:
        model = pending.pop()
        if model not in seen:
            seen.add(model)
            for name, field in model.model_fields.items():
                names.add(field.alias or name)
                pending += _models_in(field.annotation)
    return frozenset(names)


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    """The pydantic models a type names, however deep (`list[Part] | None` names Part)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [model for arg in getattr(annotation, "__args__", ()) for model in _models_in(arg)]


def describe(errors: Sequence[Mapping[str, Any]], fields: frozenset[str]) -> tuple[str, str | None]:
    """(message, param) for pydantic's `errors`: the first field that failed, and of the ways
    a field of several types failed, the one that got furthest."""
    if not errors:
        return "the body is not a valid request", None
    if errors[0].get("type") in ("json_invalid", "json_type"):
        return BAD_JSON, None
    parsed = [_Failure(error, fields) for error in errors]
    first = parsed[0]
    rivals = [failure for failure in parsed if failure.field == first.field]
    best = max(rivals, key=lambda failure: (len(failure.path), not failure.wrong_type))
    if best.wrong_type and len(rivals) > 1 and best.path == first.field and first.field:
        expected = ALTERNATIVES.get(str(first.field[-1]), "another type")
        return _said(best.path, f"expected {expected}, got {best.got}"), best.param
    return _said(best.path, best.problem()), best.param


class _Failure:
    """One of pydantic's errors: the path of fields it is at (`field`: up to the first union
    member's name), the full path, and what is wrong."""

    def __init__(self, error: Mapping[str, Any], fields: frozenset[str]) -> None:
        self.error = error
        self.kind = str(error.get("type", ""))
        self.field: tuple[str | int, ...] = ()
        self.path: tuple[str | int, ...] = ()
        in_member = False
        where, *parts = tuple(error.get("loc", ())) or ("body",)
        for part in parts:  # after where it is: body, query, path or header
            if isinstance(part, int) or part in fields or where != "body":
                self.path += (part,)
                if not in_member:
                    self.field += (part,)
            else:
                in_member = True  # a union member's name: not the client's

    @property
    def param(self) -> str | None:
        return json_path(self.path) or None

    @property
    def wrong_type(self) -> bool:
        return self.kind.endswith(("_type", "_parsing")) or self.kind in ("int_from_float", "none_required")

    @property
    def got(self) -> str:
        return json_type(self.error.get("input"))

    def problem(self) -> str:
        ctx = dict(self.error.get("ctx") or {})
        if self.wrong_type:
            expected = self.kind.removesuffix("_type").removesuffix("_parsing").replace("_from_float", "")
            return f"expected {JSON_TYPES.get(expected, 'another type')}, got {self.got}"
        kind = self.kind
        if isinstance(self.error.get("input"), str) and kind in ("too_short", "too_long"):
            kind = "string_" + kind  # a length constraint on a validated string says "items"
        return _PROBLEMS.get(kind, lambda _: "is not valid")(ctx)


def _count(n: Any, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _at_least_characters(ctx: Mapping[str, Any]) -> str:
    least = ctx.get("min_length")
    return "must not be empty" if least == 1 else f"must be at least {_count(least, 'character', 'characters')}"


_PROBLEMS = {
    "missing": lambda ctx: "is required",
    "string_too_short": _at_least_characters,
    "string_too_long": lambda ctx: f"must be at most {_count(ctx.get('max_length'), 'character', 'characters')}",
    "too_short": lambda ctx: f"must have at least {_count(ctx.get('min_length'), 'item', 'items')}",
    "too_long": lambda ctx: f"must have at most {_count(ctx.get('max_length'), 'item', 'items')}",
    "greater_than_equal": lambda ctx: f"must be at least {ctx.get('ge')}",
    "greater_than": lambda ctx: f"must be greater than {ctx.get('gt')}",
    "less_than_equal": lambda ctx: f"must be at most {ctx.get('le')}",
    "less_than": lambda ctx: f"must be less than {ctx.get('lt')}",
    "literal_error": lambda ctx: f"must be one of {ctx.get('expected')}",
    "enum": lambda ctx: f"must be one of {ctx.get('expected')}",
    "value_error": lambda ctx: str(ctx.get("error", "is not valid")),
}


def json_path(path: Sequence[str | int]) -> str:
    """('messages', 0, 'content') -> 'messages[0].content'."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text


def json_type(value: Any) -> str:
    """The JSON type of a value, in words (never the value)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list | tuple):
        return "an array"
    return "an object"


def _said(path: Sequence[str | int], problem: str) -> str:
    where = json_path(path)
    return f"{where}: {problem}" if where else f"the body: {problem}"
