"""What a session file may hold, checked field by field on load: a file with a wrong type
anywhere is damaged (one line says where), never a traceback later in a turn."""

from __future__ import annotations

import math
import re
from typing import Any

from ...errors import InputError

SESSION_FORMAT_VERSION = 1
ROLES = ("user", "assistant")
LATEST_TIME = 32_503_680_000.0  # year 3000: a later timestamp is damage, not a date
_NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
MAX_TITLE_CHARS = 120


def validate_session_name(name: str) -> str:
    if not isinstance(name, str) or not _NAME_PATTERN.fullmatch(name):
        raise InputError(
            f"invalid session name {name!r}: use 1-64 letters, digits, '.', '_' or '-'"
        )
    return name


def session_title(title: str) -> str:
    """A conversation's title as it is stored: one line, whitespace runs made one space ("" to
    have none). InputError when it is too long."""
    title = " ".join(title.split())
    if len(title) > MAX_TITLE_CHARS:
        raise InputError(f"a title is at most {MAX_TITLE_CHARS} characters")
    return title


def check_session_data(data: Any) -> dict[str, Any]:
    """The fields of a parsed session file, type-checked; ValueError names the first bad one.
    The session's name is not among them: the file's name is what counts."""
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    if data.get("version") != SESSION_FORMAT_VERSION:
        raise ValueError(f"unknown format version {data.get('version')!r}")
    if not isinstance(data.get("name", ""), str):
        raise ValueError("'name' is not text")
    turns = data.get("turns", [])
    if not isinstance(turns, list):
        raise ValueError("'turns' is not a list")
    checked = [_turn(turn, index) for index, turn in enumerate(turns)]
    upto = data.get("summarized_upto", 0)
    if type(upto) is not int or not 0 <= upto <= len(turns):
        raise ValueError(f"'summarized_upto' is not a turn count from 0 to {len(turns)}")
    revision = data.get("revision")
    if revision is not None and not isinstance(revision, str):
        raise ValueError("'revision' is not text")
    return {
        "created": _time(data, "created"),
        "updated": _time(data, "updated"),
        "turns": checked,
        "summary": _text(data, "summary"),
        "title": _text(data, "title"),
        "summarized_upto": upto,
        "revision": revision,
    }


def _turn(turn: Any, index: int) -> dict[str, Any]:
    if not isinstance(turn, dict):
        raise ValueError(f"turn {index} is not a JSON object")
    if turn.get("role") not in ROLES:
        raise ValueError(f"turn {index} has role {turn.get('role')!r}, not one of {', '.join(ROLES)}")
    if not isinstance(turn.get("content"), str):
        raise ValueError(f"turn {index} has no text content")
    checked = {"role": turn["role"], "content": turn["content"], "time": _time(turn, "time", f"turn {index} ")}
    calls = turn.get("tool_calls")
    if calls is not None:
        if not isinstance(calls, list) or not all(isinstance(call, dict) for call in calls):
            raise ValueError(f"turn {index} has 'tool_calls' that are not a list of objects")
        checked["tool_calls"] = calls
    return checked


def _time(data: dict[str, Any], key: str, where: str = "") -> float:
    value = data.get(key, 0.0)
    if type(value) not in (int, float) or not math.isfinite(value) or not 0 <= value <= LATEST_TIME:
        raise ValueError(f"{where}'{key}' is not a time in seconds")
    return float(value)


def _text(data: dict[str, Any], key: str) -> str:
    value = data.get(key, "")
    if not isinstance(value, str):
        raise ValueError(f"'{key}' is not text")
    return value
