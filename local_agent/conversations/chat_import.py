"""Past conversations to import: our JSON Lines format or a ChatGPT `conversations.json` export,
read into typed messages plus one problem record per line that could not be used.

JSON Lines, one message a line, in order:
    {"session": NAME, "role": "user"|"assistant", "content": TEXT, "date": "YYYY-MM-DD" or ISO time}
`session` is required and follows the session-name rules; `date` may be left out. A ChatGPT
export is a JSON array of conversations: each is walked from its `current_node` back to the root
(the branch the user last saw), keeping the user's and the assistant's visible text messages.
Without a current node, from its latest message; a conversation with nothing to import is a
problem, never dropped in silence.

Dates are naive local time, as the agent's today is: a timestamp with an offset or a ChatGPT
epoch time is converted to this machine's local time. A message's position is its index in its
session in file order; in JSON Lines a bad line that names a valid session still takes its
position, so fixing it and importing again does not shift the dedupe keys of the others.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from ..config import MAX_IMPORT_BYTES
from ..errors import InputError
from ..limits import MAX_MESSAGE_CHARS  # one message's limit, the same as a chat turn's
from ..memory.sessions import validate_session_name
from ..process.files import read_user_file

# A longer message than MAX_MESSAGE_CHARS is skipped as a problem: reading facts from it grows
# with its length (a 20 MB message took over 5 minutes), and a chat turn refuses it too.
ImportRole = Literal["user", "assistant"]
Format = Literal["jsonl", "chatgpt"]
_ROLES = ("user", "assistant")
_CHATGPT_TEXT = ("text", "multimodal_text")  # other content types are code, tool output, reasoning


@dataclass(frozen=True)
class ImportedMessage:
    """One message to import. `line` is its line in a JSON Lines file, or its conversation's
    number (from 1) in a ChatGPT export."""

    session: str
    position: int
    role: ImportRole
    content: str
    date: datetime | None
    line: int

    @property
    def key(self) -> str:
        return dedupe_key(self.session, self.position, self.content)


@dataclass(frozen=True)
class ImportProblem:
    """A line (or a ChatGPT conversation, by number) that was skipped, and why."""

    line: int
    message: str


@dataclass(frozen=True)
class ChatImport:
    format: Format
    messages: tuple[ImportedMessage, ...]
    problems: tuple[ImportProblem, ...]


def dedupe_key(session: str, position: int, content: str) -> str:
    """The same message imported twice has the same key: session, position, content hash."""
    digest = hashlib.sha256(content.encode("utf-8")).hexdigest()[:16]
    return f"{session}/{position}/{digest}"


def read_chats(path: Path, *, max_bytes: int = MAX_IMPORT_BYTES) -> ChatImport:
    """Read an import file; a file that cannot be read as a whole raises InputError (or
    NotFoundError), a bad line becomes an ImportProblem."""
    return parse_chats(_read_text(Path(path), max_bytes), name=str(path))


def read_chat_bytes(data: bytes, *, name: str) -> ChatImport:
    """An import sent as bytes (the page's upload), read as a file is: InputError for a zip
    archive, text that is not UTF-8, or neither format."""
    return parse_chats(_decoded(data, name), name=name)


def parse_chats(text: str, *, name: str = "input") -> ChatImport:
    """The format is told by the first character: `[` a ChatGPT export, `{` JSON Lines (or one
    exported conversation on its own)."""
    body = text.lstrip("\ufeff \t\r\n")
    if not body:
        raise InputError(f"{name}: the file is empty")
    if body[0] == "[":
        return _chatgpt(_load_export(body, name), name)
    if body[0] == "{":
        single = _single_conversation(body)
        return _chatgpt([single], name) if single is not None else _jsonl(text)
    raise InputError(f"{name}: neither JSON Lines (one JSON object a line) nor a ChatGPT conversations.json export")


def parse_date(value: str) -> datetime:
    """`YYYY-MM-DD` or an ISO timestamp, as naive local time; ValueError otherwise."""
    moment = datetime.fromisoformat(value.strip())
    return moment.astimezone().replace(tzinfo=None) if moment.tzinfo else moment


# -- the whole file ----------------------------------------------------------------------------


def _read_text(path: Path, max_bytes: int) -> str:
    return _decoded(read_user_file(path, max_bytes), str(path))


def _decoded(data: bytes, name: str) -> str:
    if data.startswith(b"PK\x03\x04"):
        raise InputError(f"{name}: is a zip archive; unzip it and import the conversations.json inside")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(f"{name}: not UTF-8 text (line {line}, byte {exc.start})") from None


def _load_export(body: str, name: str) -> list[Any]:
    try:
        data = json.loads(body)
    except json.JSONDecodeError as exc:
        raise InputError(f"{name}: not valid JSON at line {exc.lineno}, column {exc.colno} ({exc.msg})") from None
    except RecursionError:
        raise InputError(f"{name}: JSON nested too deeply") from None
    if not any(isinstance(item, dict) and "mapping" in item for item in data):
        raise InputError(f"{name}: a JSON array, but not a ChatGPT export (no conversation has a `mapping`)")
    return list(data)


def _single_conversation(body: str) -> dict[str, Any] | None:
    try:
        data = json.loads(body)
    except (json.JSONDecodeError, RecursionError):
        return None  # JSON Lines (several objects), or a bad first line reported below
    return data if isinstance(data, dict) and isinstance(data.get("mapping"), dict) else None


# -- JSON Lines --------------------------------------------------------------------------------


def _jsonl(text: str) -> ChatImport:
    messages: list[ImportedMessage] = []
    problems: list[ImportProblem] = []
    positions: dict[str, int] = {}
    # split on newlines only: JSON strings may hold U+2028 and other characters splitlines() splits on
    for number, raw in enumerate(text.lstrip("\ufeff").split("\n"), 1):
        if not raw.strip():
            continue
        try:
            messages.append(_jsonl_message(raw, number, positions))
        except _BadLine as exc:
            problems.append(ImportProblem(number, str(exc)))
    return ChatImport("jsonl", tuple(messages), tuple(problems))


class _BadLine(Exception):
    """Why one line cannot be imported."""


def _jsonl_message(raw: str, number: int, positions: dict[str, int]) -> ImportedMessage:
    try:
        item = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise _BadLine(f"not valid JSON ({exc.msg} at column {exc.colno})") from None
    except RecursionError:
        raise _BadLine("JSON nested too deeply") from None
    if not isinstance(item, dict):
        raise _BadLine(f"expected a JSON object, got {type(item).__name__}")
    session = _session(item.get("session"))
    position = positions.get(session, 0)
    positions[session] = position + 1  # taken even if the rest of the line is bad
    role = item.get("role")
    if role not in _ROLES:
        raise _BadLine(f"role must be 'user' or 'assistant', not {role!r}")
    content = item.get("content")
    if content is None:
        raise _BadLine("content is missing")
    if not isinstance(content, str):
        raise _BadLine(f"content must be text, not {type(content).__name__}")
    if not content.strip():
        raise _BadLine("content is empty")
    if len(content) > MAX_MESSAGE_CHARS:
        raise _BadLine(_too_long(len(content)))
    return ImportedMessage(session, position, role, content.strip(), _line_date(item.get("date")), number)


def _session(value: Any) -> str:
    if value is None:
        raise _BadLine("session is missing")
    if not isinstance(value, str) or "\n" in value:
        raise _BadLine(f"invalid session name {value!r}")
    try:
        return validate_session_name(value)
    except InputError as exc:
        raise _BadLine(str(exc)) from None


def _too_long(length: int) -> str:
    return f"content has {length} characters, over the {MAX_MESSAGE_CHARS} an imported message may have"


def _line_date(value: Any) -> datetime | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise _BadLine(f"date must be a string (YYYY-MM-DD or an ISO timestamp), not {value!r}")
    try:
        return parse_date(value)
    except ValueError:
        raise _BadLine(f"unreadable date {value!r}: use YYYY-MM-DD or an ISO time such as 2024-05-02T18:30") from None


# -- ChatGPT export ----------------------------------------------------------------------------


def _chatgpt(conversations: list[Any], name: str) -> ChatImport:
    messages: list[ImportedMessage] = []
    problems: list[ImportProblem] = []
    taken: set[str] = set()
    for number, conversation in enumerate(conversations, 1):
        if not isinstance(conversation, dict) or not isinstance(conversation.get("mapping"), dict):
            problems.append(ImportProblem(number, f"conversation {number}: not a conversation (no `mapping`)"))
            continue
        session = _unique(_session_base(conversation), taken)
        try:
            nodes = _current_branch(conversation["mapping"], conversation.get("current_node"))
        except _BadLine as exc:
            problems.append(ImportProblem(number, f"conversation {number} ({session}): {exc}"))
            continue
        fallback = _epoch(conversation.get("create_time"))
        visible = list(_visible(nodes))
        if not visible:
            problems.append(ImportProblem(number, f"conversation {number} ({session}): no user or assistant text "
                                          "to import"))
        for position, (role, content, date) in enumerate(visible):
            if len(content) > MAX_MESSAGE_CHARS:  # skipped, keeping the others' positions
                problems.append(ImportProblem(number, f"conversation {number} ({session}), message {position + 1}: "
                                              + _too_long(len(content))))
                continue
            messages.append(ImportedMessage(session, position, role, content, date or fallback, number))
    return ChatImport("chatgpt", tuple(messages), tuple(problems))


def _current_branch(mapping: dict[str, Any], current: Any) -> list[dict[str, Any]]:
    """The nodes from the root to `current_node`; without a usable one, the path that ends at
    the latest message (a tree with several roots, or no root at all, is read that way too,
    and a loop is cut where it closes: nothing is lost in silence). A loop on the way to a
    named current node is a problem."""
    named = _in(current, mapping)
    node_id = current if named else _latest(mapping)
    path: list[dict[str, Any]] = []
    seen: set[str] = set()
    while isinstance(node_id, str) and node_id in mapping:
        if node_id in seen:
            if named:
                raise _BadLine("its message tree has a loop")
            break
        seen.add(node_id)
        node = mapping[node_id]
        if not isinstance(node, dict):
            raise _BadLine(f"node {node_id!r} is not an object")
        path.append(node)
        node_id = node.get("parent")
    return path[::-1]


def _latest(mapping: dict[str, Any]) -> str | None:
    """The node of the latest message: the newest create_time, else the newest leaf (each
    node's last child, from the first root), else the last node with a message."""
    timed: list[tuple[datetime, int, str]] = []
    for order, (key, node) in enumerate(mapping.items()):
        when = _epoch(node["message"].get("create_time")) if _message_of(node) else None
        if when is not None:
            timed.append((when, order, key))  # of two at the same time, the later in the file
    if timed:
        return max(timed)[2]
    leaf = _newest_leaf(mapping)
    if leaf is not None and _message_of(mapping.get(leaf)):
        return leaf
    with_message = [key for key, node in mapping.items() if _message_of(node)]
    return with_message[-1] if with_message else leaf


def _message_of(node: Any) -> bool:
    return isinstance(node, dict) and isinstance(node.get("message"), dict)


def _newest_leaf(mapping: dict[str, Any]) -> str | None:
    """From the root, follow each node's last child (the most recent regeneration)."""
    roots = [key for key, node in mapping.items() if isinstance(node, dict) and not _in(node.get("parent"), mapping)]
    current = roots[0] if roots else None
    for _ in range(len(mapping)):
        node = mapping.get(current) if current else None
        children = node.get("children") if isinstance(node, dict) else None
        if not isinstance(children, list) or not children or not _in(children[-1], mapping):
            break
        current = children[-1]
    return current


def _in(key: Any, mapping: dict[str, Any]) -> bool:
    return isinstance(key, str) and key in mapping


def _visible(nodes: list[dict[str, Any]]) -> Iterator[tuple[ImportRole, str, datetime | None]]:
    """The user's and the assistant's shown text messages; system, tool, hidden and non-text
    messages (code, tool calls, reasoning, images alone) are left out."""
    for node in nodes:
        message = node.get("message")
        if not isinstance(message, dict):
            continue
        author = message.get("author")
        role = author.get("role") if isinstance(author, dict) else None
        metadata = message.get("metadata")
        metadata = metadata if isinstance(metadata, dict) else {}
        if role not in _ROLES or metadata.get("is_visually_hidden_from_conversation"):
            continue
        if message.get("recipient", "all") != "all":  # the assistant calling a tool
            continue
        content = message.get("content")
        if not isinstance(content, dict) or content.get("content_type") not in _CHATGPT_TEXT:
            continue
        parts = content.get("parts")
        text = "\n".join(part for part in parts if isinstance(part, str)).strip() if isinstance(parts, list) else ""
        if text:
            yield role, text, _epoch(message.get("create_time"))


def _session_base(conversation: dict[str, Any]) -> str:
    """A readable, valid session name: the title's words and the start of the conversation id."""
    title = conversation.get("title")
    title = title if isinstance(title, str) else ""
    ascii_title = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_title.lower()).strip("-")[:40].rstrip("-") or "chatgpt"
    ident = conversation.get("conversation_id") or conversation.get("id")
    suffix = re.sub(r"[^A-Za-z0-9]", "", ident)[:8] if isinstance(ident, str) else ""
    return f"{slug}-{suffix}" if suffix else slug


def _unique(base: str, taken: set[str]) -> str:
    name, number = base, 1
    while name in taken:
        number += 1
        name = f"{base[:56]}-{number}"
    taken.add(validate_session_name(name))
    return name


def _epoch(value: Any) -> datetime | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        return datetime.fromtimestamp(value)
    except (OverflowError, OSError, ValueError):
        return None
