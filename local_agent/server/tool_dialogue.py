"""A client's dialogue with tool calls in it, as the text turns the model reads.

An assistant message's calls are written the way the model writes them (tool_calls.py:
`{"tool": ..., "arguments": ...}`); a `tool` message becomes a user-side turn that quotes
the result as data (tools/text.py), named after the call it answers. When the dialogue ends
with tool results, they are the turn's message and the request is a continuation: the
user's words were remembered by the request that ended with them, and tool results are
never stored or distilled as the user's.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ..tools.text import quoted_result
from .errors import APIError
from .schemas import ChatMessage

MAX_RESULT_CHARS = 4000


@dataclass(frozen=True)
class Dialogue:
    system: str | None
    history: list[tuple[str, str]]  # (role, text), oldest first
    message: str  # the last user message, or the tool results that end the dialogue
    continuation: bool = False  # the dialogue ends with tool results


def _invalid(message: str, param: str) -> APIError:
    return APIError(400, message, code="invalid_messages", param=param)


def written_call(call: Any, where: str) -> tuple[str, str, str]:
    """(id, name, the call as the model writes it) of one of an assistant's tool_calls."""
    function = call.get("function") if isinstance(call, dict) else None
    if not isinstance(function, dict) or not isinstance(function.get("name"), str):
        raise _invalid(f"{where}: a call needs function.name", where)
    raw = function.get("arguments") or "{}"
    try:
        arguments = json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        raise _invalid(f"{where}.function.arguments: not valid JSON", where) from None
    text = json.dumps({"tool": function["name"], "arguments": arguments}, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise _invalid(f"{where}: text is not valid Unicode (it holds a lone surrogate)", where) from None
    return str(call.get("id") or ""), function["name"], text


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


def split(messages: list[ChatMessage]) -> Dialogue:
    """The directive (system messages), the turns before the last, and the last: the user's
    message, or the tool results after an assistant's calls."""
    system: list[str] = []
    turns: list[tuple[str, str, bool]] = []  # role, text, is a tool result
    names: dict[str, str] = {}  # call id -> function name
    for index, message in enumerate(messages):
        where = f"messages[{index}]"
        text = message_text(message, index)
        if message.role in ("system", "developer"):
            system.append(text.strip())
        elif message.role == "function":
            raise APIError(400, f"{where}.role: function messages are not supported (send tool messages)",
                           code="unsupported_role", param=f"{where}.role")
        elif message.role == "tool":
            named = (message.model_extra or {}).get("name")
            name = names.get(message.tool_call_id or "") or (named if isinstance(named, str) else "the tool")
            turns.append(("user", quoted_result(name, text[:MAX_RESULT_CHARS]), True))
        elif message.role == "assistant" and message.tool_calls:
            calls = [written_call(call, f"{where}.tool_calls[{n}]") for n, call in enumerate(message.tool_calls)]
            names.update({ident: name for ident, name, _ in calls})
            turns.append(("assistant", "\n".join([text, *(written for *_, written in calls)]).strip(), False))
        else:
            turns.append((message.role, text, False))
    return _ending(system, turns)


def _ending(system: list[str], turns: list[tuple[str, str, bool]]) -> Dialogue:
    directive = "\n\n".join(part for part in system if part) or None
    results = 0
    while results < len(turns) and turns[len(turns) - 1 - results][2]:
        results += 1
    if results:
        head = turns[: len(turns) - results]
        if not head or head[-1][0] != "assistant":
            raise _invalid("messages: tool results must follow an assistant message with tool_calls", "messages")
        message = "\n\n".join(text for _, text, _ in turns[len(turns) - results:])
        return Dialogue(directive, [(role, text) for role, text, _ in head], message, continuation=True)
    if not turns or turns[-1][0] != "user":
        raise _invalid("messages: the last message (besides system messages) must be the user's or a tool's",
                       "messages")
    if not turns[-1][1].strip():
        raise _invalid("messages: the last user message is empty", "messages")
    return Dialogue(directive, [(role, text) for role, text, _ in turns[:-1]], turns[-1][1])
