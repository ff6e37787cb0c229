"""Session digests: a conversation's bullet summary kept as a `digest` memory, dated with the
days the conversation spans, so "what did we talk about last week?" finds it.

One digest per session: a later summary of the same session supersedes it (history kept),
and its first day stays the first day of the conversation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..types import MemoryDraft, MemoryRecord, Provenance

if TYPE_CHECKING:
    from .store.memory_store import MemoryStore

MIN_EXCHANGES = 3  # a session this long gets a digest when it is left


def digest_of(store: MemoryStore, session: str) -> MemoryRecord | None:
    """The active digest of `session`, if any."""
    for record in store.records(kind="digest"):
        if record.provenance.session == session:
            return record
    return None


def save_digest(store: MemoryStore, session: str, summary: str, start: str, until: str,
                extra: dict[str, str] | None = None) -> MemoryRecord | None:
    """Store `summary` as the digest of `session` (said from `start` to `until`), replacing the
    one before; None when there is nothing to store or it says the same already."""
    text = summary.strip()
    if not text:
        return None
    old = digest_of(store, session)
    if old is not None and old.text == text:
        return None
    first = min(start, old.provenance.date or start) if old is not None else start
    provenance = Provenance(session=session, role="summary", date=first,
                            until=max(until, first), extra=dict(extra or {}))
    if old is not None:
        return store.supersede(old.id, text, provenance=provenance, decision={"route": "digest"})
    (record,) = store.add_many([MemoryDraft(text, "digest", provenance, {"route": "digest"})])
    return record
