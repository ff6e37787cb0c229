"""A request to Anthropic's Messages API (`POST /v1/messages`) as one turn of the assistant.

The body is read as Anthropic's API reads it (strict types; unknown fields ignored, as the
SDKs send fields this server has no use for). The system prompt, a string or text blocks,
becomes the directive; the earlier messages the visible dialogue; the last message, which
must be the user's, is the one memory recalls for, stores and distills. What the server
cannot honour is refused by name: tools and tool blocks (a `tool_result` arrives inside a
user message and must never be taken for the user's words), images and documents, extended
thinking, structured outputs (`output_config.format`), `top_k`, an assistant message last (a
prefill). `temperature` and `top_p`, which newer SDKs no longer send, are still honoured.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..limits import message_problem
from .errors import APIError
from .invalid import BAD_JSON, describe, field_names
from .schemas import MAX_MESSAGES, Text
from .turns import ChatTurn, answer_room, recent_dialogue

MAX_STOP_SEQUENCES = 16


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True)


class Block(_Open):
    """A content block; only `text` ones are read (the others are refused by name)."""

    type: str
    text: Text | None = None


class AnthropicMessage(_Open):
    role: Literal["user", "assistant"]
    content: Text | list[Block]


class Thinking(_Open):
    type: str


class MessagesRequest(_Open):
    model: str = Field(min_length=1)
    messages: list[AnthropicMessage] = Field(min_length=1, max_length=MAX_MESSAGES)
    max_tokens: int = Field(ge=1, le=2**31 - 1)
    system: Text | list[Block] | None = None
    temperature: float | None = Field(None, ge=0.0, le=1.0)
    top_p: float | None = Field(None, gt=0.0, le=1.0)
    top_k: int | None = Field(None, ge=0)
    stop_sequences: list[Annotated[Text, Field(min_length=1)]] | None = Field(None, max_length=MAX_STOP_SEQUENCES)
    stream: bool = False
    tools: list[dict[str, Any]] | None = None
    tool_choice: dict[str, Any] | None = None
    thinking: Thinking | None = None
    mcp_servers: list[dict[str, Any]] | None = None
    output_config: dict[str, Any] | None = None  # `effort` is ignored; a `format` is refused


FIELDS = field_names([MessagesRequest])


def parse_request(raw: bytes) -> MessagesRequest:
    """The body as a request; APIError 400 naming the first field that is wrong (never its value)."""
    try:
        return MessagesRequest.model_validate_json(raw)
    except ValidationError as exc:
        errors = [{**error, "loc": ("body", *error.get("loc", ()))} for error in exc.errors()]
        message, param = describe(errors, FIELDS) if errors else (BAD_JSON, None)
        raise APIError(400, message, code="invalid_request", param=param) from None


def refused(body: MessagesRequest) -> tuple[str, str] | None:
    """(why, the param) for what the request asks and the server cannot do, or None."""
    if body.tools:
        return "tools: not supported on /v1/messages (this server runs its own tools only)", "tools"
    if body.tool_choice and body.tool_choice.get("type") not in (None, "none", "auto"):
        return "tool_choice: no tools are offered on this server", "tool_choice"
    if body.thinking is not None and body.thinking.type != "disabled":
        return "thinking: extended thinking is not supported", "thinking"
    if body.top_k is not None:
        return "top_k: not supported (use temperature or top_p)", "top_k"
    if body.mcp_servers:
        return "mcp_servers: not supported", "mcp_servers"
    if body.output_config and body.output_config.get("format"):
        return "output_config.format: structured outputs are not supported on /v1/messages", "output_config.format"
    return None


def blocks_text(content: str | list[Block], where: str) -> str:
    """The text of a message or system prompt: a string, or its text blocks joined."""
    if isinstance(content, str):
        return content
    texts = []
    for index, block in enumerate(content):
        if block.type != "text" or block.text is None:
            why = KNOWN_BLOCKS.get(block.type, "only text blocks are supported")
            raise APIError(400, f"{where}[{index}]: {why}", code="unsupported_content", param=f"{where}[{index}]")
        texts.append(block.text)
    return "\n".join(texts)


KNOWN_BLOCKS = {
    "text": "a text block needs its text",
    "tool_use": "tool_use blocks are not supported (this server offers no tools on /v1/messages)",
    "tool_result": "tool_result blocks are not supported (a tool's result is not the user's words)",
    "image": "image blocks are not supported (the model reads text only)",
    "document": "document blocks are not supported (send the text as a text block)",
    "thinking": "thinking blocks are not supported",
    "redacted_thinking": "thinking blocks are not supported",
}


def split_messages(body: MessagesRequest) -> tuple[list[tuple[str, str]], str]:
    """(earlier user/assistant messages, the last user message's text)."""
    dialogue: list[tuple[str, str]] = [(message.role, blocks_text(message.content, f"messages[{index}].content"))
                for index, message in enumerate(body.messages)]
    for index, (_, text) in enumerate(dialogue):
        _check_size(text, f"messages[{index}].content")
    if dialogue[-1][0] != "user":
        raise APIError(400, "messages: the last message must be the user's (an assistant prefill is not supported)",
                       code="invalid_messages", param="messages")
    if not dialogue[-1][1].strip():
        raise APIError(400, "messages: the last user message is empty", code="invalid_messages", param="messages")
    return dialogue[:-1], dialogue[-1][1]


def _check_size(text: str, where: str) -> None:
    """APIError 400 for a message over the one limit every front end has (limits.py); the error
    names the field, never the text."""
    problem = message_problem(text)
    if problem:
        raise APIError(400, f"{where}: {problem}", code="message_too_long", param=where)


def overrides(body: MessagesRequest, context_size: int) -> dict[str, Any]:
    """GenerationSettings fields the request sets."""
    values: dict[str, Any] = {
        "max_tokens": answer_room(body.max_tokens, context_size),
        "temperature": body.temperature,
        "top_p": body.top_p,
        "stop": tuple(body.stop_sequences) if body.stop_sequences else None,
    }
    return {name: value for name, value in values.items() if value is not None}


def messages_turn(body: MessagesRequest, *, namespace: str | None, memory: bool, context_size: int) -> ChatTurn:
    """The turn a Messages request asks for; APIError 400 for what the server cannot honour."""
    problem = refused(body)
    if problem:
        raise APIError(400, problem[0], code="unsupported", param=problem[1])
    history, message = split_messages(body)
    system = blocks_text(body.system, "system").strip() if body.system is not None else ""
    _check_size(system, "system")
    return ChatTurn(message=message, history=tuple(recent_dialogue(history)), system=system or None,
                    namespace=namespace, memory=memory, generation=overrides(body, context_size))
