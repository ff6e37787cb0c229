"""Record ids and the validation of records read from files (snapshot, journal, import).

Two levels: `record_from_json` refuses what could break a command that merely reads the record
(wrong types, a time no calendar holds, nesting that overflows the stack), on load and on import.
`record_problem` and `link_problem` refuse what the user could not manage afterwards (an id that
`show`, `edit` and `forget` cannot take, text over the limit `memory add` enforces, a version
chain that leads nowhere): import refuses them, and the doctor finds them in an existing store.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Container, Mapping
from typing import Any, cast

from ...types import MEMORY_KINDS, MemoryKind, MemoryRecord

KINDS = MEMORY_KINDS
ID_LENGTH = 10
# Our own ids are lowercase hex; a caller may choose one from lowercase letters, digits, "-" and
# "_", never starting with "-" (it would read as an option on the command line).
ID_PATTERN = re.compile(r"[0-9a-z_][0-9a-z_-]{0,63}\Z")
ID_RULE = "lowercase letters, digits, '-' and '_', at most 64, not starting with '-'"
MAX_FACT_CHARS = 2000  # what `memory add` and `memory edit` take (a turn is a whole message: no limit)
EARLIEST = 0  # 1970-01-01 UTC
LATEST = 253_370_764_800  # 9999-01-01 UTC: any local time zone can still show it as a date
MAX_NESTING = 32  # provenance and decision are small objects; deeper is not ours


def make_record_id(seq: int, kind: str, text: str, taken: Container[str]) -> str:
    """A short id from the record's position in the store and its content: the same inputs
    on a fresh store give the same ids, so batch runs can be compared byte for byte."""
    salt = 0
    while True:
        material = f"{seq}\x1f{salt}\x1f{kind}\x1f{text}".encode()
        candidate = hashlib.sha256(material).hexdigest()[:ID_LENGTH]
        if candidate not in taken:
            return candidate
        salt += 1


def check_kind(kind: object) -> MemoryKind:
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
    return cast(MemoryKind, kind)


def check_key(key: object) -> tuple[str, str] | None:
    """A (subject, attribute) pair of non-empty strings, or None."""
    if key is None:
        return None
    if not isinstance(key, (list, tuple)) or len(key) != 2 or not all(isinstance(p, str) and p.strip() for p in key):
        raise ValueError(f"key must be a (subject, attribute) pair of non-empty strings, got {key!r}")
    return (key[0], key[1])


def record_from_json(data: Any) -> MemoryRecord:
    """A MemoryRecord from its to_dict() form; ValueError names the first problem."""
    if not isinstance(data, dict):
        raise ValueError(f"a record must be a JSON object, got {type(data).__name__}")
    _require_str(data, "id", empty_ok=False)
    _require_str(data, "text", empty_ok=True)
    check_kind(data.get("kind"))
    for name in ("created", "updated"):
        problem = time_problem(data.get(name, 0.0))
        if problem:
            raise ValueError(f"record {data['id']!r}: {name} {problem}")
    for name in ("provenance", "decision"):
        if data.get(name) is not None and not isinstance(data[name], dict):
            raise ValueError(f"record {data['id']!r}: {name} must be an object")
        if nested_deeper_than(data.get(name), MAX_NESTING):
            raise ValueError(f"record {data['id']!r}: {name} is nested deeper than {MAX_NESTING} levels")
    for name in ("superseded_by", "supersedes"):
        if data.get(name) is not None and not isinstance(data[name], str):
            raise ValueError(f"record {data['id']!r}: {name} must be a record id or null")
    check_key(data.get("key"))
    return MemoryRecord.from_dict(data)


def time_problem(value: object) -> str:
    """What is wrong with a stored time in seconds since 1970 ('' if nothing)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return f"must be a number, got {value!r}"
    if isinstance(value, float) and not math.isfinite(value):
        return f"must be a finite number, got {value!r}"
    if not EARLIEST <= value < LATEST:  # compared exactly: an int may be too big for a float
        shown = f"{value:.4g}" if isinstance(value, float) else (str(value) if abs(value) < 10**20 else "a huge number")
        return f"is out of range (the years 1970 to 9998), got {shown}"
    return ""


def nested_deeper_than(value: object, limit: int) -> bool:
    """Whether lists and objects in a JSON value nest more than `limit` levels. No recursion,
    so a value nested far too deep for it is still measured; only containers are visited."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if type(item) is dict else item if type(item) is list else None
        if children is None:
            continue
        if depth > limit:
            return True
        for child in children:
            if type(child) is dict or type(child) is list:
                stack.append((child, depth + 1))
    return False


def check_id(ident: object) -> str:
    """An id `show`, `edit` and `forget` can address; ValueError otherwise."""
    if not isinstance(ident, str) or not ID_PATTERN.match(ident):
        raise ValueError(f"id {ident!r} is not a usable memory id ({ID_RULE})")
    return ident


def text_problem(kind: str, text: str) -> str:
    """What is wrong with the length of a record's text ('' if nothing)."""
    if kind == "fact" and len(text) > MAX_FACT_CHARS:
        return f"text has {len(text)} characters, over the {MAX_FACT_CHARS} a fact may have"
    return ""


def record_problem(record: MemoryRecord) -> str:
    """What keeps a single record from being managed ('' if nothing)."""
    try:
        check_id(record.id)
    except ValueError as exc:
        return str(exc)
    return text_problem(record.kind, record.text)


def link_problem(record: MemoryRecord, known: Container[str], successors: Mapping[str, str | None]) -> str:
    """What is wrong with a record's version links ('' if nothing). `known` holds every id a
    link may point to; `successors` maps ids to their superseded_by (to follow the chain)."""
    for name in ("supersedes", "superseded_by"):
        target = getattr(record, name)
        if target is not None and target not in known:
            return f"{name} points to {target!r}, which is not stored"
    chain, current = [record.id], record.superseded_by
    while current is not None:
        if current in chain:
            return f"superseded_by runs in a circle ({' -> '.join([*chain, current])})"
        chain.append(current)
        current = successors.get(current)
    return ""


def _require_str(data: dict[str, Any], name: str, *, empty_ok: bool) -> None:
    value = data.get(name)
    if not isinstance(value, str) or (not empty_ok and not value):
        raise ValueError(f"record field {name!r} must be a {'' if empty_ok else 'non-empty '}string, got {value!r}")
