"""Response bodies in OpenAI's shapes, plus local-agent's extra `local_agent` field (what was
recalled and saved), which OpenAI clients ignore."""

from __future__ import annotations

import base64
import secrets
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .turns import ChatOutcome


@dataclass(frozen=True)
class Reply:
    """What every chunk and body of one completion shares."""

    model: str
    id: str = field(default_factory=lambda: f"chatcmpl-{secrets.token_hex(12)}")
    created: int = field(default_factory=lambda: int(time.time()))


def usage(outcome: ChatOutcome) -> dict[str, int]:
    return {"prompt_tokens": outcome.prompt_tokens, "completion_tokens": outcome.completion_tokens,
            "total_tokens": outcome.prompt_tokens + outcome.completion_tokens}


def memory_field(outcome: ChatOutcome) -> dict[str, Any]:
    extra: dict[str, Any] = {"recalled": outcome.recalled, "saved": outcome.saved}
    if outcome.tool_calls:
        extra["tool_calls"] = outcome.tool_calls
    if outcome.notices:
        extra["notices"] = outcome.notices
    if outcome.memory_error:
        extra["memory_error"] = outcome.memory_error
    return extra


def reply_message(outcome: ChatOutcome) -> dict[str, Any]:
    """The assistant's message: its text, or (finish_reason "tool_calls") the client's calls."""
    if outcome.calls:
        return {"role": "assistant", "content": None, "tool_calls": outcome.calls}
    return {"role": "assistant", "content": outcome.answer}


def completion(reply: Reply, outcome: ChatOutcome) -> dict[str, Any]:
    return {
        "id": reply.id, "object": "chat.completion", "created": reply.created, "model": reply.model,
        "choices": [{"index": 0, "message": reply_message(outcome),
                     "logprobs": None, "finish_reason": outcome.finish_reason}],
        "usage": usage(outcome),
        "local_agent": memory_field(outcome),
    }


def chunk(reply: Reply, delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
    return {
        "id": reply.id, "object": "chat.completion.chunk", "created": reply.created, "model": reply.model,
        "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}],
    }


def call_chunks(reply: Reply, calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The calls as OpenAI streams them: each opens with its id, type and name (arguments
    empty), then its arguments follow in a delta of their own."""
    bodies = []
    for index, call in enumerate(calls):
        opening = {"index": index, "id": call["id"], "type": "function",
                   "function": {"name": call["function"]["name"], "arguments": ""}}
        bodies.append(chunk(reply, {"tool_calls": [opening]}))
        arguments = {"index": index, "function": {"arguments": call["function"]["arguments"]}}
        bodies.append(chunk(reply, {"tool_calls": [arguments]}))
    return bodies


def final_chunk(reply: Reply, outcome: ChatOutcome) -> dict[str, Any]:
    body = chunk(reply, {}, outcome.finish_reason)
    body["local_agent"] = memory_field(outcome)
    return body


def usage_chunk(reply: Reply, outcome: ChatOutcome) -> dict[str, Any]:
    """The last chunk when `stream_options.include_usage` is set: no choices, the usage."""
    return {"id": reply.id, "object": "chat.completion.chunk", "created": reply.created,
            "model": reply.model, "choices": [], "usage": usage(outcome)}


def model_list(names: list[str], created: int) -> dict[str, Any]:
    return {"object": "list",
            "data": [{"id": name, "object": "model", "created": created, "owned_by": "local-agent"}
                     for name in names]}


def embeddings(vectors: np.ndarray, model: str, encoding: str, tokens: int) -> dict[str, Any]:
    data = []
    for index, row in enumerate(np.asarray(vectors, dtype=np.float32)):
        value: Any = base64.b64encode(row.tobytes()).decode("ascii") if encoding == "base64" else row.tolist()
        data.append({"object": "embedding", "index": index, "embedding": value})
    return {"object": "list", "data": data, "model": model,
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens}}


def memory_list(records: list[dict[str, Any]]) -> dict[str, Any]:
    return {"object": "list", "data": records}
