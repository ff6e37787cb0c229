"""A memory to add, checked before it is embedded: its fields, and the id it will get."""

from __future__ import annotations

import time
from typing import Any

from ...errors import InputError
from ...types import MemoryRecord
from .records import check_id, check_key, check_kind, make_record_id, text_problem

ITEM_FIELDS = frozenset({"text", "kind", "provenance", "decision", "key", "record_id"})


def as_input(check, value):  # type: ignore[no-untyped-def]
    try:
        return check(value)
    except ValueError as exc:
        raise InputError(str(exc)) from None


def check_kinds(kinds: tuple[str, ...]) -> tuple[str, ...]:
    if isinstance(kinds, str):
        kinds = (kinds,)
    return tuple(as_input(check_kind, kind) for kind in kinds)


def make_draft(item: dict[str, Any]) -> tuple[MemoryRecord, str | None]:
    """A record without its id yet (and the id the caller asked for). InputError if invalid."""
    if not isinstance(item, dict):
        raise InputError(f"a memory to add must be a dict, got {type(item).__name__}")
    unknown = set(item) - ITEM_FIELDS
    if unknown:
        raise InputError(f"unknown field(s) for a memory: {', '.join(sorted(unknown))}")
    text, kind = item.get("text"), item.get("kind")
    if not isinstance(text, str) or not text.strip():
        raise InputError("a memory needs a non-empty text")
    kind = as_input(check_kind, kind)
    if text_problem(kind, text):
        raise InputError(text_problem(kind, text))
    for name in ("provenance", "decision"):
        if item.get(name) is not None and not isinstance(item[name], dict):
            raise InputError(f"{name} must be a dict")
    wanted = item.get("record_id")
    if wanted is not None:
        as_input(check_id, wanted)
    now = time.time()
    record = MemoryRecord(
        id="", kind=kind, text=text, created=now, updated=now,
        provenance=dict(item.get("provenance") or {}), decision=dict(item.get("decision") or {}),
        key=as_input(check_key, item.get("key")),
    )
    return record, wanted


def claim_id(wanted: str | None, seq: int, draft: MemoryRecord, taken: set[str]) -> str:
    if wanted is not None:
        if wanted in taken:
            raise InputError(f"a memory with id {wanted!r} already exists")
        ident = wanted
    else:
        ident = make_record_id(seq, draft.kind, draft.text, taken)
    taken.add(ident)
    return ident
