"""Response bodies and stream events in the shapes of Anthropic's Messages API, plus
local-agent's `local_agent` field (what was recalled and saved), which the SDKs ignore.

The stream is Anthropic's named events: `message_start`, `content_block_start`, then one
`content_block_delta` per chunk of text, `content_block_stop`, `message_delta` (the stop
reason and the token counts) and `message_stop`; an error after the stream began is an
`error` event. There is no `[DONE]`.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass, field
from typing import Any

from .responses import memory_field
from .turns import ChatOutcome

# The error type Anthropic's API gives each status (its SDKs pick the exception class by status).
ERROR_TYPES = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
               404: "not_found_error", 405: "invalid_request_error", 409: "invalid_request_error",
               413: "request_too_large", 415: "invalid_request_error", 429: "rate_limit_error",
               500: "api_error", 503: "overloaded_error", 529: "overloaded_error"}
STOP_REASONS = {"stop": "end_turn", "length": "max_tokens"}


@dataclass(frozen=True)
class MessageReply:
    """What every event and body of one message shares."""

    model: str
    id: str = field(default_factory=lambda: f"msg_{secrets.token_hex(12)}")


def error_body(status: int, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": ERROR_TYPES.get(status, "api_error"), "message": message}}


def usage(outcome: ChatOutcome | None) -> dict[str, int]:
    if outcome is None:
        return {"input_tokens": 0, "output_tokens": 0}
    return {"input_tokens": outcome.prompt_tokens, "output_tokens": outcome.completion_tokens}


def stop_reason(outcome: ChatOutcome) -> str:
    """Anthropic's stop reason; a stop sequence that ended the answer reads as `end_turn`, since
    the backend does not say which way it stopped."""
    return STOP_REASONS.get(outcome.finish_reason, "end_turn")


def message(reply: MessageReply, outcome: ChatOutcome) -> dict[str, Any]:
    return {
        "id": reply.id, "type": "message", "role": "assistant", "model": reply.model,
        "content": [{"type": "text", "text": outcome.answer}],
        "stop_reason": stop_reason(outcome), "stop_sequence": None, "usage": usage(outcome),
        "local_agent": memory_field(outcome),
    }


def event(name: str, data: dict[str, Any]) -> dict[str, str]:
    """One server-sent event, as sse-starlette sends it: the name and its JSON."""
    return {"event": name, "data": json.dumps({"type": name, **data}, ensure_ascii=False, separators=(",", ":"))}


def opening(reply: MessageReply) -> list[dict[str, str]]:
    """The events before the first chunk of text."""
    started: dict[str, Any] = {"id": reply.id, "type": "message", "role": "assistant", "model": reply.model,
                               "content": [], "stop_reason": None, "stop_sequence": None, "usage": usage(None)}
    return [event("message_start", {"message": started}),
            event("content_block_start", {"index": 0, "content_block": {"type": "text", "text": ""}})]


def text_delta(text: str) -> dict[str, str]:
    return event("content_block_delta", {"index": 0, "delta": {"type": "text_delta", "text": text}})


def closing(outcome: ChatOutcome) -> list[dict[str, str]]:
    """The events after the last chunk of text."""
    delta = {"delta": {"stop_reason": stop_reason(outcome), "stop_sequence": None}, "usage": usage(outcome),
             "local_agent": memory_field(outcome)}
    return [event("content_block_stop", {"index": 0}), event("message_delta", delta), event("message_stop", {})]


def error_event(status: int, text: str) -> dict[str, str]:
    body = error_body(status, text)
    return event("error", {"error": body["error"]})
