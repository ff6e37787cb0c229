"""A chat-completions request as one turn of the assistant, and what a turn gives back.

The client owns the dialogue: its system messages become the directive (ours when it sends
none), its earlier user and assistant messages the visible dialogue, and its last message,
the user's, is the one memory recalls for, stores and distills. A dialogue that ends with
tool results instead goes on a turn whose user message was remembered already
(tool_dialogue.py); its tools and response format are read in tool_calls.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..limits import MAX_MESSAGE_CHARS, message_problem
from .errors import APIError
from .schemas import ChatMessage, ChatRequest, unsupported
from .tool_calls import Structured, structured
from .tool_dialogue import message_text, split

MAX_SEED = 2**32  # llama.cpp's samplers take a 32-bit seed: larger and negative seeds wrap


@dataclass(frozen=True)
class ChatTurn:
    message: str
    history: tuple[tuple[str, str], ...] = ()  # (role, text), oldest first
    system: str | None = None
    namespace: str | None = None
    memory: bool = True
    generation: dict[str, Any] = field(default_factory=dict)  # GenerationSettings fields to override
    shape: Structured | None = None  # the client's tools or response format (tool_calls.py)
    continuation: bool = False  # the message is tool results (tool_dialogue.py): nothing is remembered


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
    calls: list[dict[str, Any]] = field(default_factory=list)  # calls of the client's functions, OpenAI-shaped


@dataclass(frozen=True)
class AskTurn:
    """A warm `ask`: the CLI's question, session and per-call settings."""

    message: str
    session: str | None = None
    system: str | None = None
    memory: bool = True
    settings: dict[str, Any] = field(default_factory=dict)
    wait_for_memory: bool = True  # False: the answer goes back before the memory work (done next)


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
        if message.role == "tool":  # a tool result is data, cut to its own limit (tool_dialogue.py)
            continue
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
    dialogue = split(body.messages)
    return ChatTurn(message=dialogue.message, history=tuple(recent_dialogue(dialogue.history)), system=dialogue.system,
                    namespace=namespace, memory=memory and not dialogue.continuation,
                    generation=generation_overrides(body, context_size), shape=structured(body),
                    continuation=dialogue.continuation)
