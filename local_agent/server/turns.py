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

from .errors import APIError
from .schemas import ChatRequest, unsupported
from .tool_calls import Structured, structured
from .tool_dialogue import split

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


def chat_turn(body: ChatRequest, *, namespace: str | None, memory: bool, context_size: int) -> ChatTurn:
    """The turn a request asks for; APIError 400 for what the server cannot honour."""
    problem = unsupported(body)
    if problem:
        raise APIError(400, problem[0], code="unsupported", param=problem[1])
    dialogue = split(body.messages)
    return ChatTurn(message=dialogue.message, history=tuple(dialogue.history), system=dialogue.system,
                    namespace=namespace, memory=memory and not dialogue.continuation,
                    generation=generation_overrides(body, context_size), shape=structured(body),
                    continuation=dialogue.continuation)
