"""A memory to add, checked before it is embedded: its fields, and the id it will get."""

from __future__ import annotations

import time
from collections.abc import Callable, Container, Mapping
from typing import Any, TypeVar

from ...errors import InputError
from ...types import MemoryDraft, MemoryKind, MemoryRecord, Provenance
from .records import check_id, check_key, check_kind, make_record_id, text_problem

T = TypeVar("T")


def as_input(check: Callable[[object], T], value: object) -> T:
    """`check(value)`, its ValueError turned into an InputError (the caller's mistake)."""
    try:
        return check(value)
    except ValueError as exc:
        raise InputError(str(exc)) from None


def check_kinds(kinds: tuple[str, ...]) -> tuple[str, ...]:
    if isinstance(kinds, str):
        kinds = (kinds,)
    return tuple(as_input(check_kind, kind) for kind in kinds)


def new_draft(text: str, kind: MemoryKind, provenance: Provenance | None = None,
              decision: Mapping[str, Any] | None = None, key: tuple[str, str] | None = None,
              record_id: str | None = None) -> MemoryDraft:
    """A draft from keyword arguments (what `MemoryStore.add` takes), None meaning empty."""
    return MemoryDraft(text=text, kind=kind, provenance=Provenance() if provenance is None else provenance,
                       decision={} if decision is None else decision, key=key, record_id=record_id)


def draft_record(draft: MemoryDraft) -> MemoryRecord:
    """The record a draft becomes, without its id yet. InputError if invalid."""
    if not isinstance(draft, MemoryDraft):
        raise InputError(f"a memory to add must be a MemoryDraft, got {type(draft).__name__}")
    text = draft.text
    if not isinstance(text, str) or not text.strip():
        raise InputError("a memory needs a non-empty text")
    kind = as_input(check_kind, draft.kind)
    if text_problem(kind, text):
        raise InputError(text_problem(kind, text))
    if not isinstance(draft.provenance, Provenance):
        raise InputError(f"provenance must be a Provenance, got {type(draft.provenance).__name__}")
    if not isinstance(draft.decision, Mapping):
        raise InputError("decision must be a dict")
    if draft.record_id is not None:
        as_input(check_id, draft.record_id)
    now = time.time()
    return MemoryRecord(
        id="", kind=kind, text=text, created=now, updated=now,
        provenance=draft.provenance, decision=dict(draft.decision), key=as_input(check_key, draft.key),
    )


class _Taken:
    """The ids in use: those stored and those claimed in this write."""

    def __init__(self, stored: Container[str], claimed: set[str]) -> None:
        self.stored, self.claimed = stored, claimed

    def __contains__(self, ident: object) -> bool:
        return ident in self.claimed or ident in self.stored


def claim_id(wanted: str | None, seq: int, draft: MemoryRecord, stored: Container[str], claimed: set[str]) -> str:
    """The id the record gets: `wanted`, or one made from its content; InputError when
    `wanted` is in `stored` or was `claimed` already in this write (it joins `claimed`)."""
    taken = _Taken(stored, claimed)
    if wanted is not None:
        if wanted in taken:
            raise InputError(f"a memory with id {wanted!r} already exists")
        ident = wanted
    else:
        ident = make_record_id(seq, draft.kind, draft.text, taken)
    claimed.add(ident)
    return ident
