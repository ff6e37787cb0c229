"""What a tool is: a typed function with a name, a description and its arguments' schema."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import jsonschema

from ..errors import ToolError

ToolFunction = Callable[..., str]
Reader = Callable[[str], "dict[str, Any] | None"]


@dataclass(frozen=True)
class Tool:
    """`function` is called with the arguments as keyword arguments and returns text; it
    raises ToolError for input it cannot use. `parameters` is the JSON schema of the arguments
    object, kept to what both constrained decoders follow (see actions.py). `cancel`, when a
    tool has it, makes its running calls end soon (a thread cannot be killed); `reader`, when
    it has one, reads a message into its arguments by rule (the router asks it first), and
    `asks` says whether a message it cannot read is still one for this tool."""

    name: str
    description: str
    parameters: dict[str, Any]
    function: ToolFunction
    cancel: Callable[[], None] | None = None  # stops calls still running (the caller gave up on them)
    reader: Reader | None = None  # rules that fill the arguments from a message, or say they cannot (None)
    asks: Callable[[str], bool] | None = None  # whether a message the reader cannot read is still for this tool
    explain: Callable[[Mapping[str, Any]], str | None] | None = None  # why arguments fail, in the tool's terms

    def check(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """The arguments as a plain dict, or ToolError naming what does not fit the schema."""
        try:
            validator(self.parameters).validate(dict(arguments))
        except jsonschema.ValidationError as exc:
            explained = self.explain(arguments) if self.explain is not None else None
            if explained:
                raise ToolError(f"bad arguments for {self.name}: {explained}") from None
            where = "/".join(str(part) for part in exc.absolute_path)
            raise ToolError(f"bad arguments for {self.name}{' at ' + where if where else ''}: {exc.message}") from None
        return dict(arguments)

    def __call__(self, arguments: Mapping[str, Any]) -> str:
        return self.function(**self.check(arguments))


def object_schema(properties: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    """An arguments object with these properties, all required unless `required` says which,
    and nothing else."""
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties) if required is None else required,
        "additionalProperties": False,
    }


def text_property(description: str, max_length: int, min_length: int = 1) -> dict[str, Any]:
    """A bounded string: the bound keeps a constrained answer within the token limit."""
    return {"type": "string", "description": description, "minLength": min_length, "maxLength": max_length}


def validator(schema: Mapping[str, Any]) -> Any:
    """A JSON-schema validator for `schema`, built once per distinct schema."""
    return _validator(json.dumps(schema, sort_keys=True))


@lru_cache(maxsize=32)
def _validator(schema_json: str) -> Any:
    schema = json.loads(schema_json)
    return jsonschema.validators.validator_for(schema)(schema)
