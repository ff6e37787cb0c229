"""Messages a client got wrong, answered with a JSON-RPC error that carries the request's id.

The SDK validates each message as a whole: a line whose `params` is a string or an array
fails that validation, and its stdio transport then drops it without an answer (the id is
lost with it), so a client waiting on that id waits forever. An `id` of the wrong type
(null, 1.5, true) even makes a request pass as a notification, which nobody answers. Each
raw message is therefore read here first, over stdio (stdio.py) and HTTP (`CheckedBodies`):

- not JSON: -32700, id null;
- not one JSON object (a batch, a number), or an id that is no string or integer: -32600,
  id null (the id cannot be told);
- no `"jsonrpc": "2.0"`, no method (nor result or error), a method that is no string: -32600
  with the id;
- `params` that is no object (a string, an array, a number; null only where the method needs
  params): -32602 with the id;
- `tools/call` without a tool name, with `arguments` that are no object, or without
  `arguments` for a tool that requires some: -32602 with the id;
- anything else the SDK would not take: -32600 with the id.

A message that passes goes on to the SDK unchanged. Error messages name the field and what it
must be, never the value sent.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mcp_types import INVALID_PARAMS, INVALID_REQUEST, PARSE_ERROR, jsonrpc_message_adapter
from pydantic import ValidationError

from ..server.invalid import json_type

RequestId = str | int | None
Required = Callable[[str], Sequence[str]]  # a tool's required argument names (none for an unknown tool)
NEEDS_PARAMS = frozenset({"tools/call", "resources/read", "prompts/get", "initialize"})


@dataclass(frozen=True)
class Refusal:
    """The JSON-RPC error a malformed message gets."""

    id: RequestId
    code: int
    message: str

    def to_json(self) -> dict[str, Any]:
        return {"jsonrpc": "2.0", "id": self.id, "error": {"code": self.code, "message": self.message}}


def no_required(_: str) -> Sequence[str]:
    return ()


def required_arguments(tools: Sequence[Any]) -> Required:
    """The lookup for `Refusal`s of tools/call, from the server's tools (their input schemas)."""
    required = {tool.name: tuple((tool.input_schema or {}).get("required", ())) for tool in tools}
    return lambda name: required.get(name, ())


def check_message(raw: str | bytes, required: Required = no_required) -> Refusal | None:
    """The error `raw` (one message as sent) gets, or None when the SDK may have it."""
    if not raw.strip():
        return Refusal(None, PARSE_ERROR, "Parse error: an empty message")
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        return Refusal(None, PARSE_ERROR, "Parse error: the message is not valid JSON")
    refusal = _envelope_problem(data)
    if refusal is None:
        refusal = _params_problem(data, required)
    if refusal is None:
        try:
            jsonrpc_message_adapter.validate_python(data, by_name=False)
        except ValidationError:
            return Refusal(data.get("id"), INVALID_REQUEST, "Invalid Request: not a JSON-RPC message MCP takes")
    return refusal


def _usable_id(ident: object) -> bool:
    return isinstance(ident, str) or (isinstance(ident, int) and not isinstance(ident, bool))


def _envelope_problem(data: object) -> Refusal | None:
    if not isinstance(data, dict):
        return Refusal(None, INVALID_REQUEST, f"Invalid Request: a message is one JSON object, got {json_type(data)}"
                                              " (batches are not supported)")
    if "id" in data and not _usable_id(data["id"]):
        return Refusal(None, INVALID_REQUEST, f"Invalid Request: id must be a string or an integer, "
                                              f"got {json_type(data['id'])}")
    ident = data.get("id")
    if data.get("jsonrpc") != "2.0":
        return Refusal(ident, INVALID_REQUEST, 'Invalid Request: jsonrpc must be "2.0"')
    if "method" not in data:
        if ident is not None and ("result" in data or "error" in data):
            return None  # a response to one of the server's own requests
        return Refusal(ident, INVALID_REQUEST, "Invalid Request: method is required")
    if not isinstance(data["method"], str):
        return Refusal(ident, INVALID_REQUEST,
                       f"Invalid Request: method must be a string, got {json_type(data['method'])}")
    return None


def _params_problem(data: dict[str, Any], required: Required) -> Refusal | None:
    if "method" not in data:
        return None
    ident, method, params = data.get("id"), data["method"], data.get("params")
    if params is None and method in NEEDS_PARAMS:
        return _invalid(ident, f"params: {method} needs an object")
    if params is not None and not isinstance(params, dict):
        return _invalid(ident, f"params must be an object, got {json_type(params)}")
    if method == "tools/call":
        return _tool_call_problem(ident, params or {}, required)
    return None


def _tool_call_problem(ident: RequestId, params: Mapping[str, Any], required: Required) -> Refusal | None:
    name = params.get("name")
    if not isinstance(name, str):
        return _invalid(ident, f"params.name must be the tool's name (a string), got {json_type(name)}")
    arguments = params.get("arguments")
    if arguments is not None and not isinstance(arguments, dict):
        return _invalid(ident, f"params.arguments must be an object, got {json_type(arguments)}")
    needed = required(name)
    if arguments is None and needed:
        return _invalid(ident, f"params.arguments is required: the tool {name} takes {', '.join(needed)}")
    return None


def _invalid(ident: RequestId, problem: str) -> Refusal:
    return Refusal(ident, INVALID_PARAMS, f"Invalid params: {problem}")
