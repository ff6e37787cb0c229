"""Record ids and the validation of records read from files (snapshot, journal, import)."""

from __future__ import annotations

import hashlib
import math
from typing import Any, get_args

from ..types import MemoryKind, MemoryRecord

KINDS: tuple[str, ...] = get_args(MemoryKind)
ID_LENGTH = 10
MIN_PREFIX = 4


def make_record_id(seq: int, kind: str, text: str, taken: set[str] | dict[str, Any]) -> str:
    """A short id from the record's position in the store and its content: the same inputs
    on a fresh store give the same ids, so batch runs can be compared byte for byte."""
    salt = 0
    while True:
        material = f"{seq}\x1f{salt}\x1f{kind}\x1f{text}".encode("utf-8")
        candidate = hashlib.sha256(material).hexdigest()[:ID_LENGTH]
        if candidate not in taken:
            return candidate
        salt += 1


def check_kind(kind: object) -> str:
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
    return str(kind)


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
        value = data.get(name, 0.0)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise ValueError(f"record {data['id']!r}: {name} must be a number, got {value!r}")
    for name in ("provenance", "decision"):
        if data.get(name) is not None and not isinstance(data[name], dict):
            raise ValueError(f"record {data['id']!r}: {name} must be an object")
    for name in ("superseded_by", "supersedes"):
        if data.get(name) is not None and not isinstance(data[name], str):
            raise ValueError(f"record {data['id']!r}: {name} must be a record id or null")
    check_key(data.get("key"))
    return MemoryRecord.from_dict(data)


def _require_str(data: dict[str, Any], name: str, *, empty_ok: bool) -> None:
    value = data.get(name)
    if not isinstance(value, str) or (not empty_ok and not value):
        raise ValueError(f"record field {name!r} must be a {'' if empty_ok else 'non-empty '}string, got {value!r}")
