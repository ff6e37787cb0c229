"""A chat-completions request as one turn of the assistant, and what a turn gives back.

The client owns the dialogue: its system messages become the directive (ours when it sends
none), its earlier user and assistant messages the visible dialogue, and its last message,
which must be the user's, is the one memory recalls for, stores and distills.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..limits import MAX_MESSAGE_CHARS, message_problem
from .errors import APIError
from .schemas import ChatMessage, ChatRequest, unsupported

MAX_SEED = 2**32  # llama.cpp's samplers take a 32-bit seed: larger and negative seeds wrap


@dataclass(frozen=True)
class ChatTurn:
    message: str
    history: tuple[tuple[str, str], ...] = ()  # (role, text), oldest first
    system: str | None = None
    namespace: str | None = None
    memory: bool = True
    generation: dict[str, Any] = field(default_factory=dict)  # GenerationSettings fields to override


@dataclass
class ChatOutcome:
    answer: str
    finish_reason: str = "stop"
    prompt_tokens: int = 0
    completion_tokens: int = 0
    recalled: list[dict[str, Any]] = field(default_factory=list)
    saved: list[dict[str, Any]] = field(default_factory=list)
    memory_error: str | None = None
    cancelled: bool = False
    tool_calls: list[dict[str, Any]] = field(default_factory=list)  # the built-in tools' calls (serve --tools)
    notices: list[str] = field(default_factory=list)  # e.g. the message cut to fit beside the memories


@dataclass(frozen=True)
class AskTurn:
    """A warm `ask`: the CLI's question, session and per-call settings."""

    message: str
    session: str | None = None
    system: str | None = None
    memory: bool = True
    settings: dict[str, Any] = field(default_factory=dict)
    wait_for_memory: bool = True  # False: the answer goes back before the memory work (done next)


def message_text(message: ChatMessage, index: int) -> str:
    """A message's text: a string, or its text parts joined (other parts are refused)."""
    content = message.content
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    texts = []
    for part in content:
        if part.type != "text" or part.text is None:
            raise APIError(400, f"messages[{index}].content: only text parts are supported",
                           code="unsupported_content", param=f"messages[{index}].content")
        texts.append(part.text)
    return "\n".join(texts)


def split_dialogue(messages: list[ChatMessage]) -> tuple[str | None, list[tuple[str, str]], str]:
    """(system text or None, earlier user/assistant messages, the last user message)."""
    system: list[str] = []
    dialogue: list[tuple[str, str]] = []
    for index, message in enumerate(messages):
        if message.role in ("tool", "function"):
            where = f"messages[{index}].role"
            raise APIError(400, f"{where}: {message.role} messages are not supported (this server does not call tools)",
                           code="unsupported_role", param=where)
        text = message_text(message, index)
        if message.role in ("system", "developer"):
            system.append(text.strip())
        else:
            dialogue.append((message.role, text))
    if not dialogue or dialogue[-1][0] != "user":
        raise APIError(400, "messages: the last message (besides system messages) must be the user's",
                       code="invalid_messages", param="messages")
    if not dialogue[-1][1].strip():
        raise APIError(400, "messages: the last user message is empty", code="invalid_messages", param="messages")
    directive = "\n\n".join(part for part in system if part) or None
    return directive, dialogue[:-1], dialogue[-1][1]


def answer_room(requested: int | None, context_size: int) -> int | None:
    """max_tokens as the server honours it: over the context window is a 400; over half of it
    is cut to half, so the prompt keeps room (clients often send 4096 or more by habit)."""
    if requested is None:
        return None
    if requested >= context_size:
        raise APIError(400, f"max_tokens: must be smaller than the model's context window ({context_size} tokens)",
                       code="context_length_exceeded", param="max_tokens")
    return min(requested, context_size // 2)


def generation_overrides(body: ChatRequest, context_size: int) -> dict[str, Any]:
    stop = [body.stop] if isinstance(body.stop, str) else list(body.stop or [])
    values: dict[str, Any] = {
        "max_tokens": answer_room(body.max_completion_tokens or body.max_tokens, context_size),
        "temperature": body.temperature,
        "top_p": body.top_p,
        "seed": None if body.seed is None else body.seed % MAX_SEED,
        "stop": tuple(s for s in stop if s) or None,
    }
    return {name: value for name, value in values.items() if value is not None}


def check_sizes(messages: list[ChatMessage]) -> None:
    """APIError 400 for a message over MAX_MESSAGE_CHARS (limits.py), before anything is
    queued: the error names the message, never its text."""
    for index, message in enumerate(messages):
        problem = message_problem(message_text(message, index))
        if problem:
            where = f"messages[{index}].content"
            raise APIError(400, f"{where}: {problem}", code="message_too_long", param=where)


def recent_dialogue(history: list[tuple[str, str]], limit: int = MAX_MESSAGE_CHARS) -> list[tuple[str, str]]:
    """The newest earlier messages within `limit` characters in all, from a user message on:
    the prompt keeps less still (what fits the context, prompt.py), and fitting it costs time
    in proportion to what it is given."""
    kept, size = len(history), 0
    while kept > 0 and size + len(history[kept - 1][1]) <= limit:
        kept -= 1
        size += len(history[kept][1])
    while kept < len(history) and history[kept][0] != "user":
        kept += 1
    return history[kept:]


def chat_turn(body: ChatRequest, *, namespace: str | None, memory: bool, context_size: int) -> ChatTurn:
    """The turn a request asks for; APIError 400 for what the server cannot honour."""
    problem = unsupported(body)
    if problem:
        raise APIError(400, problem[0], code="unsupported", param=problem[1])
    check_sizes(body.messages)
    system, history, message = split_dialogue(body.messages)
    return ChatTurn(message=message, history=tuple(recent_dialogue(history)), system=system, namespace=namespace,
                    memory=memory, generation=generation_overrides(body, context_size))
