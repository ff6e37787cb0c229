"""What an OpenAI request asks the reply to be: a call to one of the client's functions
(`tools`, `tool_choice`), JSON of a schema (`response_format`), or text; and the JSON schema
that constrains decoding to it.

A reply is one JSON object, in the "anyOf plus enum" form of tools/actions.py:
`{"tool": <name>, "arguments": {...}}` for a call (one option per function, its name a
one-value enum, its arguments the function's schema), `{"answer": ...}` for the reply in
words (or in the response format's JSON), when `tool_choice` leaves that open.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass, field
from typing import Any

from ..tools.base import object_schema
from .errors import APIError
from .schema_check import SchemaProblem, prepared
from .schema_fit import bounded
from .schemas import ChatRequest

CHOICES = ("auto", "none", "required")
ANSWER_CHARS = 4096  # before fitting: the answer in words is capped as any free string


@dataclass(frozen=True)
class Function:
    """One of the client's functions: `schema` checked and inlined, `original` to validate."""

    name: str
    description: str
    schema: dict[str, Any]
    original: dict[str, Any]


@dataclass(frozen=True)
class Structured:
    """The shape a request asks of its reply."""

    functions: tuple[Function, ...] = ()
    choice: str = "auto"  # auto, none, required, or "function" (then `named`)
    named: str = ""
    response: dict[str, Any] | None = None  # the response format's checked schema
    response_original: dict[str, Any] | None = None
    json_object: bool = False
    offered: tuple[Function, ...] = field(default=())  # the functions the model may call

    @property
    def text_allowed(self) -> bool:
        return self.choice in ("auto", "none")

    @property
    def constrained(self) -> bool:
        """Whether decoding is constrained (otherwise the reply is free text)."""
        return bool(self.offered) or self.response is not None or self.json_object


def _problem(message: str, param: str) -> APIError:
    return APIError(400, message, code="unsupported_schema" if "schema" in message or "keyword" in message
                    else "invalid_request", param=param)


def function_of(tool: dict[str, Any], index: int) -> Function:
    where = f"tools[{index}]"
    if tool.get("type") != "function" or not isinstance(tool.get("function"), dict):
        raise _problem(f"{where}: only tools of type 'function' are supported", where)
    spec = tool["function"]
    name = spec.get("name")
    if not isinstance(name, str) or not name or len(name) > 64:
        raise _problem(f"{where}.function.name: a name of 1 to 64 characters is required", f"{where}.function.name")
    parameters = spec.get("parameters") or {"type": "object", "properties": {}}
    if isinstance(parameters, dict) and set(parameters) <= {"type", "title", "description"} \
            and parameters.get("type") == "object":
        parameters = {**parameters, "properties": {}}  # a function without arguments
    try:
        schema = bounded(prepared(parameters, f"{where}.function.parameters"), f"{where}.function.parameters")
    except SchemaProblem as exc:
        raise APIError(400, str(exc), code="unsupported_schema", param=f"{where}.function.parameters") from None
    if schema.get("type") != "object" or "properties" not in schema:
        raise _problem(f"{where}.function.parameters: must be an object schema with properties",
                       f"{where}.function.parameters")
    return Function(name, str(spec.get("description") or ""), {**schema, "additionalProperties": False}, parameters)


def _choice(value: Any, names: list[str]) -> tuple[str, str]:
    if value is None:
        return "auto", ""
    if isinstance(value, str) and value in CHOICES:
        return value, ""
    function = value.get("function") if isinstance(value, dict) else None
    named = function.get("name") if isinstance(function, dict) else None
    if isinstance(value, dict) and value.get("type") == "function" and named in names:
        return "function", str(named)
    raise APIError(400, f"tool_choice: one of {', '.join(CHOICES)} or a function among the tools "
                   f"({', '.join(names) or 'none given'})", code="invalid_request", param="tool_choice")


def _response(body: ChatRequest) -> tuple[dict[str, Any] | None, dict[str, Any] | None, bool]:
    form = body.response_format
    if form is None or form.type == "text":
        return None, None, False
    if form.type == "json_object":
        return None, None, True
    if form.type != "json_schema":
        raise APIError(400, "response_format: type must be text, json_object or json_schema",
                       code="invalid_request", param="response_format")
    spec = form.json_schema
    if not isinstance(spec, dict) or not isinstance(spec.get("schema"), dict):
        raise APIError(400, "response_format.json_schema.schema: a JSON schema is required",
                       code="invalid_request", param="response_format.json_schema")
    try:
        where = "response_format.json_schema.schema"
        return bounded(prepared(spec["schema"], where), where), spec["schema"], False
    except SchemaProblem as exc:
        raise APIError(400, str(exc), code="unsupported_schema", param="response_format.json_schema") from None


def structured(body: ChatRequest) -> Structured | None:
    """The shape the request asks for; None for a plain request (no tools, text format)."""
    functions = tuple(function_of(tool, index) for index, tool in enumerate(body.tools or []))
    names = [function.name for function in functions]
    if len(set(names)) != len(names):
        raise APIError(400, "tools: function names must be distinct", code="invalid_request", param="tools")
    choice, named = _choice(body.tool_choice, names)
    if choice in ("required", "function") and not functions:
        raise APIError(400, "tool_choice: no tools were given", code="invalid_request", param="tool_choice")
    response, original, json_object = _response(body)
    if json_object and functions and choice != "none":
        raise APIError(400, "response_format: json_object together with tools is not supported (use json_schema)",
                       code="invalid_request", param="response_format")
    if not functions and response is None and not json_object:
        return None
    offered = () if choice == "none" else tuple(f for f in functions if choice != "function" or f.name == named)
    return Structured(functions, choice, named, response, original, json_object, offered)


def call_option(function: Function) -> dict[str, Any]:
    return object_schema({"tool": {"type": "string", "enum": [function.name]}, "arguments": function.schema})


FREE_OBJECT: dict[str, Any] = {"type": "object"}  # json_object: any object (no length bound)


def reply_schema(shape: Structured) -> dict[str, Any] | None:
    """The checked, not yet fitted schema of the reply (FREE_OBJECT for json_object, which
    is not fitted); None for free text."""
    if not shape.constrained:
        return None
    if shape.json_object and not shape.offered:
        return FREE_OBJECT
    options = [call_option(function) for function in shape.offered]
    if shape.text_allowed:
        answer = shape.response or {"type": "string", "maxLength": ANSWER_CHARS}
        options.append(object_schema({"answer": answer}) if options else answer)
    return options[0] if len(options) == 1 else {"anyOf": options}


def call_id() -> str:
    return f"call_{secrets.token_hex(12)}"


def openai_call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"id": call_id(), "type": "function",
            "function": {"name": name, "arguments": json.dumps(arguments, ensure_ascii=False)}}
